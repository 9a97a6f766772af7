/**
 * Interaction responses: POST /interactions/:id/:token/callback and the interaction webhook
 * (/webhooks/:appId/:token[/messages/@original|:id]) used by editReply, followUp, fetchReply
 * and deleteReply. None of these carry the bot token (discord.js sends them with auth: false),
 * and none need channel permissions: Discord lets an app answer wherever it was invoked.
 *
 * A click (or a form opened by one) may also be answered by updating the clicked message (type 7,
 * or 6 then editReply), and a command or click by showing a form (type 9), recorded on the
 * interaction for `submitModal`.
 */
import { MessageFlags } from 'discord.js';
import { Errors, type Router, noContent, ok } from './http';
import type { FakeInteraction } from './interactions';
import { messagePayload } from './payloads';
import { modalFromCallback } from './components';
import { type MessageBody, type RequestContext, jsonBody, editFromBody, keptAttachments, uploadsOf, validateMessage } from './restCommon';
import type { FakeMessage } from './state';

/** Interaction response types handled here (Discord's InteractionResponseType). */
const REPLY = 4;
const DEFERRED_REPLY = 5;
const DEFERRED_UPDATE = 6;
const UPDATE = 7;
const MODAL = 9;
/** MessageType for slash-command and context-menu responses. */
const CHAT_INPUT_COMMAND = 20;
const CONTEXT_MENU_COMMAND = 23;
/** InteractionType.ModalSubmit. */
const MODAL_SUBMIT = 5;

export function registerInteractionRoutes(r: Router<RequestContext>): void {
  r.add('POST', '/interactions/:interactionId/:token/callback', callback, { auth: false });
  r.add('POST', '/webhooks/:applicationId/:token', followup, { auth: false });
  r.add(
    'GET',
    '/webhooks/:applicationId/:token/messages/:messageId',
    (ctx, p) => {
      const { message } = webhookMessage(ctx, p);
      return ok(messagePayload(ctx.deps.state, message, { gateway: false }));
    },
    { auth: false },
  );
  r.add('PATCH', '/webhooks/:applicationId/:token/messages/:messageId', editWebhookMessage, { auth: false });
  r.add(
    'DELETE',
    '/webhooks/:applicationId/:token/messages/:messageId',
    (ctx, p) => {
      const { message } = webhookMessage(ctx, p);
      ctx.deps.actions.deleteMessage(message);
      return noContent();
    },
    { auth: false },
  );
}

function callback(ctx: RequestContext, p: Record<string, string>) {
  const { state, interactions, limits } = ctx.deps;
  const ix = interactions.get(p.interactionId);
  if (!ix || ix.token !== p.token) throw Errors.unknownInteraction();
  // Past Discord's 3 s window the interaction token is dead: "Unknown interaction" (10062).
  if (Date.now() - ix.createdAt > limits.interactionAckMs) throw Errors.unknownInteraction();
  if (ix.acknowledged) throw Errors.alreadyAcknowledged();
  const body = jsonBody<{ type: number; data?: MessageBody }>(ctx);
  const data = body.data ?? {};
  const uploads = uploadsOf(ctx, data);
  if (body.type === REPLY) validateMessage(ctx, data, uploads, { edit: false });
  // Updates answer a click (or a form opened by one): only then is there a message to update.
  if ((body.type === DEFERRED_UPDATE || body.type === UPDATE) && !ix.messageId) throw invalidResponseType();
  if (body.type === UPDATE) validateMessage(ctx, data, uploads, { edit: true });
  // A form cannot answer a form; a malformed one is refused like Discord does (50035).
  if (body.type === MODAL && ix.type === MODAL_SUBMIT) throw invalidResponseType();
  if (body.type === MODAL) modalFromCallback(body.data as Record<string, unknown> | undefined);
  ix.callbacks.push({
    type: body.type,
    data: body.data as Record<string, unknown> | undefined,
    files: uploads.map((u) => ({ filename: u.filename, content: Buffer.from(u.content) })),
    at: Date.now(),
  });
  if (body.type === REPLY || body.type === DEFERRED_REPLY) {
    const ephemeral = (data.flags ?? 0) & MessageFlags.Ephemeral;
    const message = responseMessage(
      ctx,
      ix,
      {
        ...(body.type === REPLY ? data : {}),
        // A deferred reply is a real "thinking…" message carrying the Loading flag until edited.
        flags: ephemeral | (body.type === DEFERRED_REPLY ? MessageFlags.Loading : 0),
      },
      body.type === REPLY ? uploads : [],
    );
    ix.originalMessageId = message.id;
  }
  if ((body.type === DEFERRED_UPDATE || body.type === UPDATE) && ix.messageId) {
    // After an update, @original is the clicked message itself.
    ix.originalMessageId = ix.messageId;
    if (body.type === UPDATE) updateClickedMessage(ctx, ix, data, uploads);
  }
  if (ctx.query.get('with_response') !== 'true') return noContent();
  const original = ix.original;
  return ok({
    interaction: {
      id: ix.id,
      type: ix.type,
      activity_instance_id: null,
      response_message_id: original?.id,
      response_message_loading: original ? (original.flags & MessageFlags.Loading) !== 0 : undefined,
      response_message_ephemeral: original ? (original.flags & MessageFlags.Ephemeral) !== 0 : undefined,
    },
    resource: {
      type: body.type,
      ...(original ? { message: messagePayload(state, original, { gateway: false }) } : {}),
    },
  });
}

function followup(ctx: RequestContext, p: Record<string, string>) {
  const { state, actions } = ctx.deps;
  const ix = webhookInteraction(ctx, p);
  const body = jsonBody<MessageBody>(ctx);
  const uploads = uploadsOf(ctx, body);
  validateMessage(ctx, body, uploads, { edit: false });
  const original = ix.original;
  let message: FakeMessage;
  if (original && (original.flags & MessageFlags.Loading) !== 0 && ix.followupIds.length === 0) {
    // After a deferred reply, Discord turns the first follow-up into the original response
    // (keeping the ephemerality chosen when deferring).
    message = actions.editMessage(original, {
      content: body.content ?? '',
      embeds: body.embeds,
      components: body.components,
      newFiles: uploads,
      flags: original.flags & ~MessageFlags.Loading,
      allowedMentions: body.allowed_mentions,
    });
  } else {
    message = responseMessage(ctx, ix, body, uploads);
    ix.followupIds.push(message.id);
  }
  return ctx.query.get('wait') === 'true' ? ok(messagePayload(state, message, { gateway: false })) : noContent();
}

function editWebhookMessage(ctx: RequestContext, p: Record<string, string>) {
  const { ix, message } = webhookMessage(ctx, p);
  const result = editFromBody(ctx, message, () => message.flags & ~MessageFlags.Loading);
  if (message.id === ix.messageId) ix.updates++;
  return result;
}

function updateClickedMessage(ctx: RequestContext, ix: FakeInteraction, data: MessageBody, uploads: ReturnType<typeof uploadsOf>): void {
  const message = ctx.deps.state.messages.get(ix.messageId ?? '');
  if (!message) throw Errors.unknownMessage();
  ctx.deps.actions.editMessage(message, {
    content: data.content,
    embeds: data.embeds,
    components: data.components,
    attachments: keptAttachments(message, data),
    newFiles: uploads,
    allowedMentions: data.allowed_mentions,
  });
  ix.updates++;
}

const invalidResponseType = () => Errors.invalidForm('type', 'INTERACTION_RESPONSE_TYPE_INVALID', 'Interaction response type is invalid for this interaction.');

function responseMessage(ctx: RequestContext, ix: FakeInteraction, body: MessageBody, uploads: ReturnType<typeof uploadsOf>) {
  const { state, actions } = ctx.deps;
  return actions.createMessage({
    channelId: ix.channelId,
    authorId: state.bot.id,
    type: responseType(ix),
    content: body.content,
    embeds: body.embeds,
    components: body.components,
    attachments: uploads,
    allowedMentions: body.allowed_mentions,
    flags: body.flags ?? 0,
    webhookId: state.applicationId,
    interaction: { id: ix.id, name: ix.commandName, userId: ix.userId, type: ix.type },
  });
}

/**
 * The message type of a response: 20 for a slash command, 23 for a context-menu command; the
 * answer to a click or a form is a plain message here (0).
 */
function responseType(ix: FakeInteraction): number {
  if (ix.type !== 2) return 0;
  return (ix.payload.data as { type?: number } | undefined)?.type === 3 ? CONTEXT_MENU_COMMAND : CHAT_INPUT_COMMAND;
}

/** The interaction behind a webhook token; it only works once the interaction was acknowledged. */
function webhookInteraction(ctx: RequestContext, p: Record<string, string>): FakeInteraction {
  const ix = ctx.deps.interactions.byWebhookToken(p.token);
  if (!ix || p.applicationId !== ctx.deps.state.applicationId || !ix.acknowledged) throw Errors.unknownWebhook();
  return ix;
}

function webhookMessage(ctx: RequestContext, p: Record<string, string>): { ix: FakeInteraction; message: FakeMessage } {
  const ix = webhookInteraction(ctx, p);
  const id = p.messageId === '@original' ? ix.originalMessageId : p.messageId;
  const mine = id !== null && (id === ix.originalMessageId || ix.followupIds.includes(id));
  const message = mine ? ctx.deps.state.messages.get(id) : undefined;
  if (!message) throw Errors.unknownMessage();
  return { ix, message };
}
