/**
 * Slash-command interactions: building the INTERACTION_CREATE a person's `/command` produces,
 * and recording what the bot answered (callback, original response edits, follow-ups).
 *
 * Option types are taken from the commands the bot registered (PUT .../commands), like Discord's
 * client does, so `/memory forget id:x` arrives exactly as it would in production; when the
 * command is unknown the type is inferred from the JS value.
 */
import { ApplicationCommandOptionType, MessageFlags } from 'discord.js';
import type { UploadInput } from './actions';
import { channelPayload, memberPayload, rolePayload, userPayload, attachmentPayload } from './payloads';
import type { FakeAttachment, FakeMessage, FakeState, RegisteredCommand } from './state';
import { type FakeModal, modalFromCallback } from './components';

type Json = Record<string, unknown>;

/** InteractionResponseType.Modal. */
const MODAL = 9;

/** A value for one option. Plain values are typed from the registered command (or inferred). */
export type SlashOptionValue = string | number | boolean | UploadInput | { type: ApplicationCommandOptionType; value: string | number | boolean };

export interface InteractionCallbackRecord {
  /** InteractionResponseType: 4 reply, 5 deferred reply, 6 deferred update, 7 update, 9 modal. */
  type: number;
  data: Json | undefined;
  files: Array<{ filename: string; content: Buffer }>;
  at: number;
}

export class FakeInteraction {
  readonly callbacks: InteractionCallbackRecord[] = [];
  originalMessageId: string | null = null;
  readonly followupIds: string[] = [];

  constructor(
    private readonly state: FakeState,
    readonly id: string,
    readonly token: string,
    /** Full path as typed: `memory forget`. */
    readonly commandName: string,
    readonly channelId: string,
    readonly guildId: string,
    readonly userId: string,
    readonly createdAt: number,
    /** The INTERACTION_CREATE payload that was dispatched. */
    readonly payload: Json,
    /** InteractionType: 2 command (slash or context menu), 3 component (a click), 5 form submit. */
    readonly type = 2,
    /** The message holding the clicked component (also a form's shown from one): what types 6 and 7 edit. */
    readonly messageId: string | null = null,
  ) {}

  /** Set once the form shown in answer was submitted (a form closes on submit). */
  formSubmitted = false;

  /** Times the bot changed the component's message through this interaction (type 7, or editReply after 6). */
  updates = 0;

  /** When the first answer arrived (ms since the epoch), or null while unanswered. */
  get acknowledgedAt(): number | null {
    return this.callbacks[0]?.at ?? null;
  }

  /** The form the bot showed in answer (callback type 9), as the person sees it. */
  get modal(): FakeModal | undefined {
    const shown = this.callbacks.find((c) => c.type === MODAL);
    return shown ? modalFromCallback(shown.data) : undefined;
  }

  get acknowledged(): boolean {
    return this.callbacks.length > 0;
  }

  /** Milliseconds from dispatch to the first callback (Discord allows 3 000). */
  get ackDelayMs(): number | null {
    return this.callbacks.length ? this.callbacks[0].at - this.createdAt : null;
  }

  get deferred(): boolean {
    return this.callbacks[0]?.type === 5;
  }

  get ephemeral(): boolean {
    return ((this.original?.flags ?? 0) & MessageFlags.Ephemeral) !== 0;
  }

  /** The original response message (deferred ones carry the Loading flag until edited). */
  get original(): FakeMessage | undefined {
    return this.originalMessageId ? this.state.messages.get(this.originalMessageId) : undefined;
  }

  get followups(): FakeMessage[] {
    return this.followupIds.map((id) => this.state.messages.get(id)).filter((m): m is FakeMessage => !!m);
  }

  /** True once the user sees an answer: a non-loading original response, an update of the clicked message, or any follow-up. */
  get answered(): boolean {
    return this.shownOriginal() !== undefined || this.followupIds.length > 0;
  }

  /** All the text the user was shown, original (or the clicked message as updated) first. */
  get texts(): string[] {
    const o = this.shownOriginal();
    return [...(o ? [o.content] : []), ...this.followups.map((m) => m.content)];
  }

  private shownOriginal(): FakeMessage | undefined {
    const o = this.original;
    if (!o || (o.flags & MessageFlags.Loading) !== 0) return undefined;
    // After a deferred update (type 6) the clicked message is the original, but unchanged until edited.
    return o.id === this.messageId && this.updates === 0 ? undefined : o;
  }
}

export class InteractionRegistry {
  private readonly byId = new Map<string, FakeInteraction>();
  private readonly byToken = new Map<string, FakeInteraction>();

  add(i: FakeInteraction): void {
    this.byId.set(i.id, i);
    this.byToken.set(i.token, i);
  }

  get(id: string): FakeInteraction | undefined {
    return this.byId.get(id);
  }

  byWebhookToken(token: string): FakeInteraction | undefined {
    return this.byToken.get(token);
  }

  all(): FakeInteraction[] {
    return [...this.byId.values()];
  }
}

export interface SlashCommandInput {
  channelId: string;
  userId: string;
  /** `name`, `name sub` or `name group sub`. */
  command: string;
  options: Record<string, SlashOptionValue>;
  attachmentSizeLimit: number;
  makeAttachment: (channelId: string, upload: UploadInput) => FakeAttachment;
}

/** Builds the INTERACTION_CREATE payload (type 2, application command, chat input). */
export function buildSlashCommand(state: FakeState, input: SlashCommandInput): { payload: Json; id: string; token: string } {
  const channel = state.channel(input.channelId);
  const guildId = channel.guildId;
  const [name, ...path] = input.command.trim().split(/\s+/);
  const registered = findCommand(state, guildId, name);
  const leafDefs = leafOptionDefinitions(registered, path);
  const resolved: Record<string, Record<string, unknown>> = {};
  const addResolved = (kind: string, id: string, value: unknown) => {
    resolved[kind] ??= {};
    resolved[kind][id] = value;
  };

  const leafOptions = Object.entries(input.options).map(([optName, raw]) => {
    const def = leafDefs.find((d) => d.name === optName);
    const { type, value } = typedValue(raw, def?.type);
    switch (type) {
      case ApplicationCommandOptionType.User:
      case ApplicationCommandOptionType.Mentionable:
        if (state.users.has(String(value))) {
          const id = String(value);
          addResolved('users', id, userPayload(state.user(id)));
          const m = state.member(guildId, id);
          if (m) {
            const perms = state.permissionsIn(input.channelId, id).toString();
            addResolved('members', id, { ...memberPayload(state, m, { withUser: false }), permissions: perms });
          }
        } else if (state.roles.has(String(value))) {
          addResolved('roles', String(value), rolePayload(state.roles.get(String(value))!));
        }
        break;
      case ApplicationCommandOptionType.Role:
        addResolved('roles', String(value), rolePayload(state.roles.get(String(value))!));
        break;
      case ApplicationCommandOptionType.Channel: {
        const c = state.channel(String(value));
        addResolved('channels', c.id, {
          ...channelPayload(state, c),
          permissions: state.permissionsIn(c.id, input.userId).toString(),
        });
        break;
      }
      case ApplicationCommandOptionType.Attachment: {
        const att = input.makeAttachment(input.channelId, raw as UploadInput);
        addResolved('attachments', att.id, attachmentPayload(att));
        return { name: optName, type, value: att.id };
      }
    }
    return { name: optName, type, value };
  });

  // Wrap leaf options in their subcommand (and group), which carry no value themselves.
  let options: Json[] = leafOptions;
  if (path.length >= 1) options = [{ name: path[path.length - 1], type: ApplicationCommandOptionType.Subcommand, options }];
  if (path.length === 2) options = [{ name: path[0], type: ApplicationCommandOptionType.SubcommandGroup, options }];

  const { id, token, envelope } = interactionEnvelope(state, channel.id, input.userId, input.attachmentSizeLimit);
  const payload: Json = {
    ...envelope,
    type: 2,
    data: {
      id: registered?.id ?? state.ids.next(),
      name,
      type: 1,
      ...(registered?.guildId ? { guild_id: registered.guildId } : {}),
      ...(options.length ? { options } : {}),
      ...(Object.keys(resolved).length ? { resolved } : {}),
    },
  };
  return { payload, id, token };
}

/**
 * What every guild interaction carries besides its `type` and `data`: ids, the token, where it
 * happened, and the invoker as a member with their permissions in the channel.
 */
export function interactionEnvelope(
  state: FakeState,
  channelId: string,
  userId: string,
  attachmentSizeLimit: number,
): { id: string; token: string; envelope: Json } {
  const channel = state.channel(channelId);
  const guildId = channel.guildId;
  const member = state.member(guildId, userId);
  if (!member) throw new Error(`fake-discord: ${userId} is not a member of guild ${guildId}`);
  const id = state.ids.next();
  const token = `fake-interaction-token-${id}`;
  const envelope: Json = {
    id,
    application_id: state.applicationId,
    token,
    version: 1,
    guild_id: guildId,
    channel_id: channel.id,
    channel: channelPayload(state, channel),
    guild: { id: guildId, locale: 'en-US', features: [] },
    member: {
      ...memberPayload(state, member, { withUser: true }),
      // The invoker's permissions in this channel: what the bot checks for admin-only commands.
      permissions: state.permissionsIn(channel.id, userId).toString(),
    },
    app_permissions: state.permissionsIn(channel.id, state.bot.id).toString(),
    locale: 'en-US',
    guild_locale: 'en-US',
    entitlements: [],
    authorizing_integration_owners: { '0': guildId },
    context: 0,
    attachment_size_limit: attachmentSizeLimit,
  };
  return { id, token, envelope };
}

/** The command a person in the guild sees by that name (type 1 slash, 3 message context menu). */
export function findCommand(state: FakeState, guildId: string, name: string, type = 1): RegisteredCommand | undefined {
  const all = [...state.commands.values()].filter((c) => c.name === name && c.type === type);
  return all.find((c) => c.guildId === guildId) ?? all.find((c) => c.guildId === null);
}

interface OptionDef {
  name: string;
  type: number;
  options?: OptionDef[];
}

function leafOptionDefinitions(command: RegisteredCommand | undefined, path: string[]): OptionDef[] {
  let defs = (command?.raw.options as OptionDef[] | undefined) ?? [];
  for (const step of path) defs = defs.find((d) => d.name === step)?.options ?? [];
  return defs;
}

function typedValue(raw: SlashOptionValue, registeredType: number | undefined): { type: number; value: string | number | boolean } {
  if (typeof raw === 'object' && 'type' in raw && 'value' in raw) return { type: raw.type, value: raw.value };
  if (typeof raw === 'object') return { type: ApplicationCommandOptionType.Attachment, value: '' };
  if (registeredType !== undefined) return { type: registeredType, value: raw };
  if (typeof raw === 'boolean') return { type: ApplicationCommandOptionType.Boolean, value: raw };
  if (typeof raw === 'number') {
    return { type: Number.isInteger(raw) ? ApplicationCommandOptionType.Integer : ApplicationCommandOptionType.Number, value: raw };
  }
  return { type: ApplicationCommandOptionType.String, value: raw };
}
