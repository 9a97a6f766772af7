/**
 * Channel and thread routes: fetch/patch a channel (archive, lock, rename, forum tags), create
 * threads (from a message, standalone, forum posts), list archived and active threads, thread
 * membership.
 */
import { ChannelType } from 'discord.js';
import { ApiError, Errors, type Router, noContent, ok } from './http';
import { channelPayload, messagePayload, threadMemberPayload } from './payloads';
import { has } from './permissions';
import {
  type MessageBody,
  type RequestContext,
  channelOr404,
  jsonBody,
  limitParam,
  messageOr404,
  requirePermissions,
  uploadsOf,
  validateMessage,
} from './restCommon';
import { compareSnowflakes } from './snowflake';
import { type FakeChannel, type ThreadInfo, isThread } from './state';

interface ThreadPatch {
  name?: string;
  archived?: boolean;
  locked?: boolean;
  auto_archive_duration?: ThreadInfo['autoArchiveDuration'];
  invitable?: boolean;
  applied_tags?: string[];
  topic?: string | null;
}

export function registerThreadRoutes(r: Router<RequestContext>): void {
  r.add('GET', '/channels/:channelId', (ctx, p) => {
    const channel = channelOr404(ctx, p.channelId);
    requirePermissions(ctx, channel);
    return ok(channelPayload(ctx.deps.state, channel));
  });
  r.add('PATCH', '/channels/:channelId', patchChannel);
  r.add('POST', '/channels/:channelId/messages/:messageId/threads', threadFromMessage);
  r.add('POST', '/channels/:channelId/threads', createThread);

  r.add('GET', '/channels/:channelId/threads/archived/public', (ctx, p) => archived(ctx, p, 'public'));
  r.add('GET', '/channels/:channelId/threads/archived/private', (ctx, p) => archived(ctx, p, 'private'));
  r.add('GET', '/channels/:channelId/users/@me/threads/archived/private', (ctx, p) => archived(ctx, p, 'joined'));
  r.add('GET', '/guilds/:guildId/threads/active', (ctx, p) => {
    const { state } = ctx.deps;
    if (!state.guilds.has(p.guildId)) throw Errors.unknownGuild();
    const threads = state.channelsOf(p.guildId, { threads: true }).filter((t) => !t.thread?.archived && state.permissionsIn(t.id, state.bot.id) !== 0n);
    return ok(threadList(ctx, threads));
  });

  const members = '/channels/:channelId/thread-members';
  r.add('PUT', `${members}/@me`, (ctx, p) => setMembership(ctx, p.channelId, ctx.deps.state.bot.id, true));
  r.add('DELETE', `${members}/@me`, (ctx, p) => setMembership(ctx, p.channelId, ctx.deps.state.bot.id, false));
  r.add('PUT', `${members}/:userId`, (ctx, p) => setMembership(ctx, p.channelId, p.userId, true));
  r.add('DELETE', `${members}/:userId`, (ctx, p) => setMembership(ctx, p.channelId, p.userId, false));
  r.add('GET', members, (ctx, p) => {
    const thread = threadOr400(ctx, p.channelId);
    requirePermissions(ctx, thread);
    return ok([...thread.thread!.memberIds].map((id) => threadMemberPayload(thread, id, thread.thread!.createdAt)));
  });
  r.add('GET', `${members}/:userId`, (ctx, p) => {
    const thread = threadOr400(ctx, p.channelId);
    requirePermissions(ctx, thread);
    if (!thread.thread!.memberIds.has(p.userId)) throw Errors.unknownMember();
    return ok(threadMemberPayload(thread, p.userId, thread.thread!.createdAt));
  });
}

function threadOr400(ctx: RequestContext, id: string): FakeChannel {
  const c = channelOr404(ctx, id);
  if (!c.thread) throw new ApiError(400, 50024, 'Cannot execute action on this channel type');
  return c;
}

function patchChannel(ctx: RequestContext, p: Record<string, string>) {
  const { state, actions } = ctx.deps;
  const channel = channelOr404(ctx, p.channelId);
  const body = jsonBody<ThreadPatch>(ctx);
  if (body.name !== undefined && (body.name.length < 1 || body.name.length > 100)) {
    throw Errors.invalidForm('name', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  }
  if (!channel.thread) {
    requirePermissions(ctx, channel, 'ManageChannels');
    if (body.name !== undefined) channel.name = body.name;
    if (body.topic !== undefined) channel.topic = body.topic;
    actions.channelChanged(channel);
    return ok(channelPayload(state, channel));
  }
  const t = channel.thread;
  const bits = requirePermissions(ctx, channel);
  const moderator = has(bits, 'ManageThreads');
  const owner = t.ownerId === state.bot.id;
  // Discord: locking, invitable and unarchiving a locked thread need Manage Threads; the owner
  // may rename, archive and retag their own thread.
  const needsModerator =
    body.locked !== undefined ||
    body.invitable !== undefined ||
    (t.locked && body.archived === false) ||
    (!owner && (body.name !== undefined || body.archived !== undefined || body.auto_archive_duration !== undefined || body.applied_tags !== undefined));
  if (needsModerator && !moderator) throw Errors.missingPermissions();
  if (t.archived && t.locked && !moderator) throw Errors.archivedThread();
  if (body.applied_tags) checkTags(ctx, channel, body.applied_tags);
  actions.updateThread(channel, {
    name: body.name,
    archived: body.archived,
    locked: body.locked,
    autoArchiveDuration: body.auto_archive_duration,
    invitable: body.invitable,
    appliedTags: body.applied_tags,
  });
  return ok(channelPayload(state, channel));
}

function checkTags(ctx: RequestContext, thread: FakeChannel, tagIds: string[]): void {
  const forum = thread.parentId ? ctx.deps.state.channels.get(thread.parentId) : undefined;
  const known = new Set((forum?.availableTags ?? []).map((t) => t.id));
  if (tagIds.length > 5 || tagIds.some((id) => !known.has(id))) {
    throw Errors.invalidForm('applied_tags', 'INVALID_TAG', 'Unknown or too many forum tags.');
  }
}

function threadName(body: { name?: string }): string {
  const name = body.name ?? '';
  if (name.length < 1 || name.length > 100) throw Errors.invalidForm('name', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  return name;
}

function threadFromMessage(ctx: RequestContext, p: Record<string, string>) {
  const { state, actions } = ctx.deps;
  const channel = channelOr404(ctx, p.channelId);
  if (isThread(channel) || channel.type === ChannelType.GuildForum) {
    throw new ApiError(400, 50024, 'Cannot execute action on this channel type');
  }
  requirePermissions(ctx, channel, 'CreatePublicThreads', 'ReadMessageHistory');
  const message = messageOr404(ctx, channel, p.messageId);
  if (message.threadId) throw new ApiError(400, 160004, 'A thread has already been created for this message');
  const body = jsonBody<{ name?: string; auto_archive_duration?: ThreadInfo['autoArchiveDuration'] }>(ctx);
  const thread = actions.createThread({
    parentId: channel.id,
    name: threadName(body),
    ownerId: state.bot.id,
    type: channel.type === ChannelType.GuildAnnouncement ? ChannelType.AnnouncementThread : ChannelType.PublicThread,
    fromMessageId: message.id,
    autoArchiveDuration: body.auto_archive_duration,
  });
  return ok(channelPayload(state, thread), 201);
}

function createThread(ctx: RequestContext, p: Record<string, string>) {
  const { state, actions } = ctx.deps;
  const channel = channelOr404(ctx, p.channelId);
  const body = jsonBody<{
    name?: string;
    type?: number;
    invitable?: boolean;
    auto_archive_duration?: ThreadInfo['autoArchiveDuration'];
    applied_tags?: string[];
    message?: MessageBody;
  }>(ctx);
  if (isThread(channel)) throw new ApiError(400, 50024, 'Cannot execute action on this channel type');

  if (channel.type === ChannelType.GuildForum) {
    // A forum post is a thread plus its starter message, which shares the thread's id.
    requirePermissions(ctx, channel, 'SendMessages');
    const starter = body.message ?? {};
    const uploads = uploadsOf(ctx, starter);
    validateMessage(ctx, starter, uploads, { edit: false });
    const name = threadName(body);
    const tags = body.applied_tags ?? [];
    const known = new Set((channel.availableTags ?? []).map((t) => t.id));
    if (tags.some((id) => !known.has(id))) throw Errors.invalidForm('applied_tags', 'INVALID_TAG', 'Unknown forum tag.');
    const thread = actions.createThread({
      parentId: channel.id,
      name,
      ownerId: state.bot.id,
      type: ChannelType.PublicThread,
      appliedTags: tags,
      autoArchiveDuration: body.auto_archive_duration,
    });
    const message = actions.createMessage({
      id: thread.id,
      channelId: thread.id,
      authorId: state.bot.id,
      content: starter.content,
      embeds: starter.embeds,
      components: starter.components,
      attachments: uploads,
      allowedMentions: starter.allowed_mentions,
    });
    return ok({ ...channelPayload(state, thread), message: messagePayload(state, message, { gateway: false }) }, 201);
  }

  // API v10 still defaults to a private thread when `type` is omitted (discord.js always sends it).
  const type = body.type ?? ChannelType.PrivateThread;
  if (type !== ChannelType.PublicThread && type !== ChannelType.PrivateThread && type !== ChannelType.AnnouncementThread) {
    throw Errors.invalidForm('type', 'BASE_TYPE_CHOICES', 'Value must be one of {10, 11, 12}.');
  }
  requirePermissions(ctx, channel, type === ChannelType.PrivateThread ? 'CreatePrivateThreads' : 'CreatePublicThreads');
  const thread = actions.createThread({
    parentId: channel.id,
    name: threadName(body),
    ownerId: state.bot.id,
    type,
    invitable: body.invitable,
    autoArchiveDuration: body.auto_archive_duration,
  });
  return ok(channelPayload(state, thread), 201);
}

/**
 * Archived threads, newest archive first. `public`/`private` page by `before=<ISO timestamp>`;
 * the joined-private route pages by `before=<thread id>` (Discord's asymmetry, mirrored).
 */
function archived(ctx: RequestContext, p: Record<string, string>, kind: 'public' | 'private' | 'joined') {
  const { state } = ctx.deps;
  const channel = channelOr404(ctx, p.channelId);
  requirePermissions(ctx, channel, 'ReadMessageHistory', ...(kind === 'private' ? (['ManageThreads'] as const) : []));
  const limit = limitParam(ctx, 50, 100);
  const before = ctx.query.get('before');
  let threads = state.threadsOf(channel.id).filter((t) => t.thread?.archived);
  if (kind === 'public') threads = threads.filter((t) => t.type !== ChannelType.PrivateThread);
  else threads = threads.filter((t) => t.type === ChannelType.PrivateThread);
  if (kind === 'joined') {
    threads = threads.filter((t) => t.thread?.memberIds.has(state.bot.id));
    threads.sort((a, b) => compareSnowflakes(b.id, a.id));
    if (before) threads = threads.filter((t) => compareSnowflakes(t.id, before) < 0);
  } else {
    threads.sort((a, b) => b.thread!.archiveTimestamp - a.thread!.archiveTimestamp);
    if (before) threads = threads.filter((t) => t.thread!.archiveTimestamp < Date.parse(before));
  }
  return ok({ ...threadList(ctx, threads.slice(0, limit)), has_more: threads.length > limit });
}

function threadList(ctx: RequestContext, threads: FakeChannel[]) {
  const { state } = ctx.deps;
  return {
    threads: threads.map((t) => channelPayload(state, t)),
    members: threads.filter((t) => t.thread?.memberIds.has(state.bot.id)).map((t) => threadMemberPayload(t, state.bot.id, t.thread!.createdAt)),
  };
}

function setMembership(ctx: RequestContext, channelId: string, userId: string, join: boolean) {
  const thread = threadOr400(ctx, channelId);
  const { state } = ctx.deps;
  const bits = state.permissionsIn(thread.id, state.bot.id);
  if (!has(bits, 'ViewChannel')) throw Errors.missingAccess();
  if (thread.thread!.archived) throw Errors.archivedThread();
  if (join) thread.thread!.memberIds.add(userId);
  else thread.thread!.memberIds.delete(userId);
  return noContent();
}
