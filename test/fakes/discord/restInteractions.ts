/**
 * Interaction responses: POST /interactions/:id/:token/callback and the interaction webhook
 * (/webhooks/:appId/:token[/messages/@original|:id]) used by editReply, followUp, fetchReply
 * and deleteReply. None of these carry the bot token (discord.js sends them with auth: false),
 * and none need channel permissions: Discord lets an app answer wherever it was invoked.
 */
import { MessageFlags } from 'discord.js';
import { Errors, type Router, noContent, ok } from './http';
import type { FakeInteraction } from './interactions';
import { messagePayload } from './payloads';
import { type MessageBody, type RequestContext, jsonBody, editFromBody, uploadsOf, validateMessage } from './restCommon';
import type { FakeMessage } from './state';

/** Interaction response types handled here (Discord's InteractionResponseType). */
const REPLY = 4;
const DEFERRED_REPLY = 5;
/** MessageType for slash-command responses. */
const CHAT_INPUT_COMMAND = 20;

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
  if (ctx.query.get('with_response') !== 'true') return noContent();
  const original = ix.original;
  return ok({
    interaction: {
      id: ix.id,
      type: 2,
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
  const { message } = webhookMessage(ctx, p);
  return editFromBody(ctx, message, () => message.flags & ~MessageFlags.Loading);
}

function responseMessage(ctx: RequestContext, ix: FakeInteraction, body: MessageBody, uploads: ReturnType<typeof uploadsOf>) {
  const { state, actions } = ctx.deps;
  return actions.createMessage({
    channelId: ix.channelId,
    authorId: state.bot.id,
    type: CHAT_INPUT_COMMAND,
    content: body.content,
    embeds: body.embeds,
    components: body.components,
    attachments: uploads,
    allowedMentions: body.allowed_mentions,
    flags: body.flags ?? 0,
    webhookId: state.applicationId,
    interaction: { id: ix.id, name: ix.commandName, userId: ix.userId },
  });
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
