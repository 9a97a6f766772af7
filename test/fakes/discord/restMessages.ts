/**
 * Message routes: history (paginated like Discord), send/edit/delete, typing, pins (new and
 * legacy routes) and reactions.
 */
import { ChannelType } from 'discord.js';
import { Errors, type Router, noContent, ok } from './http';
import { messagePayload, userPayload } from './payloads';
import { has } from './permissions';
import {
  type MessageBody,
  type RequestContext,
  channelOr404,
  editFromBody,
  jsonBody,
  limitParam,
  messageOr404,
  requirePermissions,
  uploadsOf,
  validateMessage,
} from './restCommon';
import { compareSnowflakes } from './snowflake';
import { type FakeChannel, type FakeMessage, emojiKey, isThread, parseEmoji } from './state';

export function registerMessageRoutes(r: Router<RequestContext>): void {
  r.add('GET', '/channels/:channelId/messages', listMessages);
  r.add('POST', '/channels/:channelId/messages', createMessage);
  r.add('GET', '/channels/:channelId/messages/:messageId', (ctx, p) => {
    const channel = channelOr404(ctx, p.channelId);
    requirePermissions(ctx, channel, 'ReadMessageHistory');
    return ok(messagePayload(ctx.deps.state, messageOr404(ctx, channel, p.messageId), { gateway: false }));
  });
  r.add('PATCH', '/channels/:channelId/messages/:messageId', editMessage);
  r.add('DELETE', '/channels/:channelId/messages/:messageId', (ctx, p) => {
    const channel = channelOr404(ctx, p.channelId);
    const message = messageOr404(ctx, channel, p.messageId);
    if (message.authorId !== ctx.deps.state.bot.id) requirePermissions(ctx, channel, 'ManageMessages');
    else requirePermissions(ctx, channel);
    ctx.deps.actions.deleteMessage(message);
    return noContent();
  });
  r.add('POST', '/channels/:channelId/messages/bulk-delete', (ctx, p) => {
    const channel = channelOr404(ctx, p.channelId);
    requirePermissions(ctx, channel, 'ManageMessages');
    const ids = jsonBody<{ messages?: string[] }>(ctx).messages ?? [];
    if (ids.length < 2 || ids.length > 100) throw Errors.invalidForm('messages', 'BASE_TYPE_BAD_LENGTH', 'Must be between 2 and 100 in length.');
    for (const id of ids) {
      const m = ctx.deps.state.messages.get(id);
      if (m && m.channelId === channel.id) ctx.deps.actions.deleteMessage(m);
    }
    return noContent();
  });
  r.add('POST', '/channels/:channelId/typing', (ctx, p) => {
    const channel = channelOr404(ctx, p.channelId);
    requirePermissions(ctx, channel, isThread(channel) ? 'SendMessagesInThreads' : 'SendMessages');
    ctx.deps.actions.typing(channel.id, ctx.deps.state.bot.id);
    // 204 with no body and no content-type (pitfall 1).
    return noContent();
  });

  // Pins: discord.js >= 14.22 uses /messages/pins; older code uses /pins (pitfall 8). Serve both.
  for (const base of ['/channels/:channelId/messages/pins', '/channels/:channelId/pins']) {
    r.add('PUT', `${base}/:messageId`, pin);
    r.add('DELETE', `${base}/:messageId`, unpin);
  }
  r.add('GET', '/channels/:channelId/messages/pins', listPins);
  r.add('GET', '/channels/:channelId/pins', (ctx, p) => {
    const channel = channelOr404(ctx, p.channelId);
    requirePermissions(ctx, channel, 'ReadMessageHistory');
    const { state } = ctx.deps;
    const pins = [...state.pinsIn(channel.id)].reverse();
    return ok(pins.map((pin) => messagePayload(state, state.message(pin.messageId), { gateway: false })));
  });

  const reactions = '/channels/:channelId/messages/:messageId/reactions';
  r.add('PUT', `${reactions}/:emoji/@me`, (ctx, p) => {
    const { channel, message } = target(ctx, p);
    const emoji = parseEmoji(p.emoji);
    const existing = message.reactions.has(emojiKey(emoji));
    // Adding a new emoji needs AddReactions; joining an existing reaction only needs history.
    requirePermissions(ctx, channel, 'ReadMessageHistory', ...(existing ? [] : (['AddReactions'] as const)));
    ctx.deps.actions.addReaction(message, ctx.deps.state.bot.id, emoji);
    return noContent();
  });
  r.add('DELETE', `${reactions}/:emoji/@me`, (ctx, p) => {
    const { channel, message } = target(ctx, p);
    requirePermissions(ctx, channel);
    ctx.deps.actions.removeReaction(message, ctx.deps.state.bot.id, parseEmoji(p.emoji));
    return noContent();
  });
  r.add('DELETE', `${reactions}/:emoji/:userId`, (ctx, p) => {
    const { channel, message } = target(ctx, p);
    requirePermissions(ctx, channel, 'ManageMessages');
    ctx.deps.actions.removeReaction(message, p.userId, parseEmoji(p.emoji));
    return noContent();
  });
  r.add('GET', `${reactions}/:emoji`, (ctx, p) => {
    const { channel, message } = target(ctx, p);
    requirePermissions(ctx, channel, 'ReadMessageHistory');
    const reaction = message.reactions.get(emojiKey(parseEmoji(p.emoji)));
    const users = [...(reaction?.userIds ?? [])].sort(compareSnowflakes).slice(0, limitParam(ctx, 25, 100));
    return ok(users.map((id) => userPayload(ctx.deps.state.user(id))));
  });
  const clear = (ctx: RequestContext, p: Record<string, string>) => {
    const { channel, message } = target(ctx, p);
    requirePermissions(ctx, channel, 'ManageMessages');
    for (const reaction of [...message.reactions.values()]) {
      if (p.emoji && emojiKey(reaction.emoji) !== emojiKey(parseEmoji(p.emoji))) continue;
      for (const userId of [...reaction.userIds]) ctx.deps.actions.removeReaction(message, userId, reaction.emoji);
    }
    return noContent();
  };
  r.add('DELETE', reactions, clear);
  r.add('DELETE', `${reactions}/:emoji`, clear);
}

function target(ctx: RequestContext, p: Record<string, string>): { channel: FakeChannel; message: FakeMessage } {
  const channel = channelOr404(ctx, p.channelId);
  return { channel, message: messageOr404(ctx, channel, p.messageId) };
}

/**
 * Discord returns at most `limit` (1–100, default 50) messages, newest first, for every mode:
 * `before` (older than), `after` (the oldest ones newer than), `around` (a window centred on it).
 */
function listMessages(ctx: RequestContext, p: Record<string, string>) {
  const { state } = ctx.deps;
  const channel = channelOr404(ctx, p.channelId);
  const bits = requirePermissions(ctx, channel);
  // Without ReadMessageHistory Discord answers 200 with no messages rather than an error.
  if (!has(bits, 'ReadMessageHistory')) return ok([]);
  const limit = limitParam(ctx, 50, 100);
  const all = state.messagesIn(channel.id);
  const before = ctx.query.get('before');
  const after = ctx.query.get('after');
  const around = ctx.query.get('around');
  let page: FakeMessage[];
  if (around) {
    const idx = all.findIndex((m) => compareSnowflakes(m.id, around) >= 0);
    const centre = idx < 0 ? all.length : idx;
    const start = Math.max(0, centre - Math.floor(limit / 2));
    page = all.slice(start, start + limit);
  } else if (before) {
    const older = all.filter((m) => compareSnowflakes(m.id, before) < 0);
    page = older.slice(Math.max(0, older.length - limit));
  } else if (after) {
    page = all.filter((m) => compareSnowflakes(m.id, after) > 0).slice(0, limit);
  } else {
    page = all.slice(Math.max(0, all.length - limit));
  }
  return ok(page.reverse().map((m) => messagePayload(state, m, { gateway: false })));
}

function createMessage(ctx: RequestContext, p: Record<string, string>) {
  const { state, actions } = ctx.deps;
  const channel = channelOr404(ctx, p.channelId);
  if (channel.type === ChannelType.GuildForum || channel.type === ChannelType.GuildCategory) throw Errors.nonTextChannel();
  const body = jsonBody<MessageBody>(ctx);
  const uploads = uploadsOf(ctx, body);
  const bits = requirePermissions(
    ctx,
    channel,
    isThread(channel) ? 'SendMessagesInThreads' : 'SendMessages',
    ...(uploads.length ? (['AttachFiles'] as const) : []),
  );
  if (channel.thread?.archived && channel.thread.locked && !has(bits, 'ManageThreads')) throw Errors.archivedThread();
  validateMessage(ctx, body, uploads, { edit: false });

  let reference = null;
  const ref = body.message_reference;
  if (ref?.message_id) {
    const target = state.messages.get(ref.message_id);
    const sameChannel = target && target.channelId === (ref.channel_id ?? channel.id);
    if (sameChannel) {
      if (!has(bits, 'ReadMessageHistory')) throw Errors.missingPermissions();
      reference = { messageId: target.id, channelId: target.channelId, guildId: target.guildId };
    } else if (ref.fail_if_not_exists !== false) {
      throw Errors.invalidForm('message_reference', 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', 'Unknown message');
    }
  }
  // enforce_nonce: a retried send with the same nonce returns the first message instead of a
  // duplicate (Discord keeps nonces for a few minutes).
  if (body.enforce_nonce && body.nonce !== undefined) {
    const dup = state.messagesIn(channel.id).find((m) => m.authorId === state.bot.id && m.nonce === body.nonce && Date.now() - m.createdAt < 5 * 60_000);
    if (dup) return ok(messagePayload(state, dup, { gateway: false }));
  }
  const message = actions.createMessage({
    channelId: channel.id,
    authorId: state.bot.id,
    content: body.content,
    embeds: body.embeds,
    components: body.components,
    attachments: uploads,
    reference,
    allowedMentions: body.allowed_mentions,
    nonce: body.nonce ?? null,
    tts: body.tts,
    flags: (body.flags ?? 0) & ~64,
  });
  return ok(messagePayload(state, message, { gateway: false }));
}

function editMessage(ctx: RequestContext, p: Record<string, string>) {
  const { state } = ctx.deps;
  const channel = channelOr404(ctx, p.channelId);
  const message = messageOr404(ctx, channel, p.messageId);
  requirePermissions(ctx, channel);
  if (message.authorId !== state.bot.id) throw Errors.cannotEditOthers();
  return editFromBody(ctx, message, (body) => body.flags);
}

function pin(ctx: RequestContext, p: Record<string, string>) {
  const { state, actions, limits } = ctx.deps;
  const channel = channelOr404(ctx, p.channelId);
  requirePermissions(ctx, channel, 'PinMessages');
  const message = messageOr404(ctx, channel, p.messageId);
  if (message.pinned) return noContent();
  if (state.pinsIn(channel.id).length >= limits.maxPins) throw Errors.maxPins(limits.maxPins);
  actions.pin(message, state.bot.id);
  return noContent();
}

function unpin(ctx: RequestContext, p: Record<string, string>) {
  const channel = channelOr404(ctx, p.channelId);
  requirePermissions(ctx, channel, 'PinMessages');
  ctx.deps.actions.unpin(messageOr404(ctx, channel, p.messageId));
  return noContent();
}

/** New pins route: `{ items: [{ pinned_at, message }], has_more }`, newest pin first, `before` is a timestamp. */
function listPins(ctx: RequestContext, p: Record<string, string>) {
  const { state } = ctx.deps;
  const channel = channelOr404(ctx, p.channelId);
  requirePermissions(ctx, channel, 'ReadMessageHistory');
  const limit = limitParam(ctx, 50, 50);
  const beforeRaw = ctx.query.get('before');
  const before = beforeRaw ? Date.parse(beforeRaw) : Infinity;
  const pins = [...state.pinsIn(channel.id)].reverse().filter((pin) => pin.pinnedAt < before);
  return ok({
    items: pins.slice(0, limit).map((pin) => ({
      pinned_at: new Date(pin.pinnedAt).toISOString(),
      message: messagePayload(state, state.message(pin.messageId), { gateway: false }),
    })),
    has_more: pins.length > limit,
  });
}
