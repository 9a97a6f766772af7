/**
 * The INTERACTION_CREATEs a person's clicks and forms produce: a button click (type 3), a form
 * submit (type 5) and a message context-menu command (type 2 with `data.type` 3).
 *
 * Each refuses, with an Error in the test, what the Discord client would never let the person
 * do: click a button the message lacks or a disabled one, submit a form the bot did not show (or
 * someone else's, or twice), run a message command the bot never registered or whose
 * `default_member_permissions` hide it from them.
 */
import { PermissionFlagsBits } from 'discord.js';
import { clickableButton, modalSubmitComponents } from './components';
import { type FakeInteraction, findCommand, interactionEnvelope } from './interactions';
import { messagePayload } from './payloads';
import type { FakeState } from './state';

type Json = Record<string, unknown>;

/** ComponentType.Button. */
const BUTTON = 2;

export interface BuiltInteraction {
  payload: Json;
  id: string;
  token: string;
  channelId: string;
}

export function buildButtonClick(
  state: FakeState,
  input: { messageId: string; userId: string; customId: string; attachmentSizeLimit: number },
): BuiltInteraction {
  const message = state.message(input.messageId);
  clickableButton(message.components, message.id, input.customId);
  if (!state.can(input.userId, message.channelId, 'ViewChannel')) {
    throw new Error(`fake-discord: ${input.userId} cannot see channel ${message.channelId}, so cannot click there`);
  }
  const { id, token, envelope } = interactionEnvelope(state, message.channelId, input.userId, input.attachmentSizeLimit);
  const payload: Json = {
    ...envelope,
    type: 3,
    message: messagePayload(state, message, { gateway: false }),
    data: { custom_id: input.customId, component_type: BUTTON },
  };
  return { payload, id, token, channelId: message.channelId };
}

export function buildModalSubmit(
  state: FakeState,
  input: { shownBy: FakeInteraction; userId: string; values: Record<string, string>; attachmentSizeLimit: number },
): BuiltInteraction {
  const from = input.shownBy;
  const shown = from.callbacks.find((c) => c.type === 9);
  if (!shown?.data) throw new Error(`fake-discord: the bot never showed a form in answer to interaction ${from.id} (${from.commandName})`);
  if (input.userId !== from.userId) throw new Error(`fake-discord: the form was shown to ${from.userId}, not ${input.userId}`);
  if (from.formSubmitted) throw new Error(`fake-discord: the form shown for interaction ${from.id} was already submitted`);
  const components = modalSubmitComponents(shown.data, input.values);
  from.formSubmitted = true;
  const { id, token, envelope } = interactionEnvelope(state, from.channelId, input.userId, input.attachmentSizeLimit);
  // A form opened from a button carries that button's message, so the bot may update it (type 7).
  const message = from.messageId ? state.messages.get(from.messageId) : undefined;
  const payload: Json = {
    ...envelope,
    type: 5,
    ...(message ? { message: messagePayload(state, message, { gateway: false }) } : {}),
    data: { custom_id: shown.data.custom_id, components },
  };
  return { payload, id, token, channelId: from.channelId };
}

export function buildMessageCommand(
  state: FakeState,
  input: { name: string; messageId: string; userId: string; channelId: string; attachmentSizeLimit: number },
): BuiltInteraction {
  const channel = state.channel(input.channelId);
  const target = state.message(input.messageId);
  if (target.channelId !== channel.id) throw new Error(`fake-discord: message ${target.id} is not in channel ${channel.id}`);
  const command = findCommand(state, channel.guildId, input.name, 3);
  if (!command) throw new Error(`fake-discord: the bot registered no message command "${input.name}" in guild ${channel.guildId}`);
  const required = command.raw.default_member_permissions;
  if (typeof required === 'string' && !covers(state.permissionsIn(channel.id, input.userId), BigInt(required))) {
    throw new Error(`fake-discord: ${input.userId} does not see "${input.name}" (default_member_permissions ${required})`);
  }
  const { id, token, envelope } = interactionEnvelope(state, channel.id, input.userId, input.attachmentSizeLimit);
  const payload: Json = {
    ...envelope,
    type: 2,
    data: {
      id: command.id,
      name: command.name,
      type: 3,
      ...(command.guildId ? { guild_id: command.guildId } : {}),
      target_id: target.id,
      resolved: { messages: { [target.id]: messagePayload(state, target, { gateway: false }) } },
    },
  };
  return { payload, id, token, channelId: channel.id };
}

/** Discord's rule for default_member_permissions: "0" is administrators only, else every bit it names. */
function covers(permissions: bigint, required: bigint): boolean {
  if (required === 0n) return (permissions & PermissionFlagsBits.Administrator) !== 0n;
  return (permissions & required) === required;
}
