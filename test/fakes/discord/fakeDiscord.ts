/**
 * FakeDiscord: the facade tests use. One instance = one HTTP server on 127.0.0.1 (REST under
 * /api/v10, attachment URLs, and the gateway WebSocket on the same port) plus its own world.
 *
 *   const d = await FakeDiscord.start();
 *   const { guild, channel, user } = d.setupBasic();
 *   const client = new Client({ intents, rest: { api: d.apiUrl } });
 *   await client.login(d.botToken);
 *   const said = d.userSays(channel.id, user.id, 'hello', { mentionsBot: true });
 *   const reply = await d.waitForBotMessage(channel.id, { after: said.id });
 *   await client.destroy(); await d.stop();
 *
 * Everything is per instance (no module state), so suites can run several fakes side by side.
 */
import { EventEmitter } from 'node:events';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFlags, ChannelType, GatewayIntentBits, PermissionFlagsBits } from 'discord.js';
import { Actions, type UploadInput } from './actions';
import { FakeGateway } from './gateway';
import { FakeInteraction, InteractionRegistry, type SlashOptionValue, buildSlashCommand } from './interactions';
import { type BuiltInteraction, buildButtonClick, buildMessageCommand, buildModalSubmit } from './componentInteractions';
import { type ButtonJson, buttonsIn } from './components';
import { pingsNobody } from './mentions';
import { identifyPayloads, memberPayload } from './payloads';
import { type PermissionInput, type PermissionName, toBits } from './permissions';
import type { FakeLimits } from './restCommon';
import { type RequestMatcher, type RequestRecord, RestServer, errorFault, rateLimitFault, requestMatches } from './server';
import { compareSnowflakes } from './snowflake';
import { Waiters } from './waiting';
import {
  type FakeChannel,
  type FakeGuild,
  type FakeMessage,
  type FakeRole,
  type FakeUser,
  type Pings,
  type PinRecord,
  type RegisteredCommand,
  type ThreadInfo,
  type TypingRecord,
  FakeState,
  isThread,
  parseEmoji,
} from './state';

export interface PrivilegedIntents {
  messageContent: boolean;
  guildMembers: boolean;
  presences: boolean;
}

export interface FakeDiscordOptions {
  botToken?: string;
  botName?: string;
  /** HELLO's interval. Keep it large (default 41 250) so heartbeats stay out of tests (pitfall 4). */
  heartbeatIntervalMs?: number;
  /** Privileged intents enabled "in the portal" (default: all). Requesting a disabled one → close 4014. */
  privilegedIntents?: Partial<PrivilegedIntents>;
  /** Post Discord's system notices ("pinned a message", "started a thread"). Default true. */
  systemMessages?: boolean;
  limits?: Partial<FakeLimits>;
  /** Dispatches kept per gateway session for RESUME (default 10 000). */
  replayLimit?: number;
  /** How long a dropped gateway session stays resumable (default 120 000 ms). */
  resumeWindowMs?: number;
  /** /gateway/bot's `max_concurrency` (default 1): how many identify buckets the bot has. */
  maxConcurrency?: number;
}

/** Messages a person is shown as the bot's answers: not system notices (types 0, 19, 20, 23 only). */
const ANSWER_TYPES = new Set([0, 19, 20, 23]);

export class FakeDiscord {
  readonly botToken: string;
  readonly state: FakeState;
  /** Strings describing fake-side problems (500s, unsupported gateway options). Assert it stays empty. */
  readonly problems: string[] = [];
  readonly interactions = new InteractionRegistry();

  private readonly events = new EventEmitter();
  private readonly waiters = new Waiters(this.events, () => this.describeActivity());
  private readonly gateway: FakeGateway;
  private readonly actions: Actions;
  private readonly rest: RestServer;
  private readonly server: Server;
  private readonly privileged: PrivilegedIntents;
  private readonly limits: FakeLimits;
  private port = 0;

  private constructor(opts: FakeDiscordOptions) {
    this.botToken = opts.botToken ?? 'fake-bot-token';
    this.state = new FakeState(opts.botName ?? 'Minutes');
    this.privileged = { messageContent: true, guildMembers: true, presences: true, ...opts.privilegedIntents };
    this.limits = { maxPins: 250, maxUploadBytes: 10 * 1024 * 1024, interactionAckMs: 3000, ...opts.limits };
    this.gateway = new FakeGateway({
      heartbeatIntervalMs: opts.heartbeatIntervalMs ?? 41250,
      replayLimit: opts.replayLimit ?? 10_000,
      resumeWindowMs: opts.resumeWindowMs ?? 120_000,
      token: () => this.botToken,
      allowedPrivilegedIntents: () => this.allowedPrivilegedIntents(),
      identify: (sessionId, shard) =>
        identifyPayloads(this.state, { sessionId, gatewayUrl: this.gatewayUrl, applicationFlags: this.applicationFlags(), shard }),
      guildMembers: (guildId, userIds) =>
        this.state
          .membersOf(guildId)
          .filter((m) => !userIds || userIds.includes(m.userId))
          .map((m) => memberPayload(this.state, m, { withUser: true })),
      onProblem: (m) => this.problems.push(m),
    });
    this.actions = new Actions(this.state, this.gateway, { systemMessages: opts.systemMessages ?? true });
    this.rest = new RestServer(
      {
        state: this.state,
        actions: this.actions,
        interactions: this.interactions,
        limits: this.limits,
        gatewayUrl: () => this.gatewayUrl,
        applicationFlags: () => this.applicationFlags(),
        maxConcurrency: opts.maxConcurrency ?? 1,
      },
      {
        token: () => this.botToken,
        onRequest: (r) => {
          this.events.emit('request', r);
          this.changed();
        },
        onProblem: (m) => this.problems.push(m),
      },
    );
    this.server = createServer((req, res) => void this.rest.handle(req, res));
    this.server.on('upgrade', (req, socket, head) => this.gateway.handleUpgrade(req, socket, head));
  }

  static async start(opts: FakeDiscordOptions = {}): Promise<FakeDiscord> {
    const d = new FakeDiscord(opts);
    await new Promise<void>((resolve, reject) => {
      d.server.once('error', reject);
      d.server.listen(0, '127.0.0.1', () => resolve());
    });
    d.port = (d.server.address() as AddressInfo).port;
    d.state.baseUrl = `http://127.0.0.1:${d.port}`;
    return d;
  }

  /** Pass as `new Client({ rest: { api: d.apiUrl } })`; discord.js appends `/v10`. */
  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api`;
  }

  get gatewayUrl(): string {
    return `ws://127.0.0.1:${this.port}/gateway`;
  }

  get bot(): FakeUser {
    return this.state.bot;
  }

  get applicationId(): string {
    return this.state.applicationId;
  }

  /** Every REST call, in arrival order. */
  get requests(): readonly RequestRecord[] {
    return this.rest.requests;
  }

  /** REST calls the fake has no route for (answered 404/405). */
  get unhandled(): readonly RequestRecord[] {
    return this.rest.unhandled;
  }

  get identifyCount(): number {
    return this.gateway.identifyCount;
  }

  get resumeCount(): number {
    return this.gateway.resumeCount;
  }

  /** The `shard` of every IDENTIFY received, in order (undefined when a client sent none). */
  get identifiedShards(): Array<[number, number] | undefined> {
    return this.gateway.received.filter((f) => f.op === 2).map((f) => (f.d as { shard?: [number, number] }).shard);
  }

  /** Every IDENTIFY received, in order: its `shard` and when it arrived (Date.now()), to check their spacing. */
  get identifies(): Array<{ shard: [number, number] | undefined; at: number }> {
    return this.gateway.received.filter((f) => f.op === 2).map((f) => ({ shard: (f.d as { shard?: [number, number] }).shard, at: f.at }));
  }

  get connectedSessions(): number {
    return this.gateway.connectedSessions;
  }

  /** `'request'` fires after each REST call is answered; `'change'` after anything changed. */
  on(event: 'request', listener: (r: RequestRecord) => void): () => void;
  on(event: 'change', listener: () => void): () => void;
  // The implementation signature behind the two overloads above: any listener shape is theirs to type.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on(event: 'request' | 'change', listener: (...args: any[]) => void): () => void {
    this.events.on(event, listener);
    return () => this.events.off(event, listener);
  }

  // ---- world setup -----------------------------------------------------------------------------

  /**
   * A guild with the bot as a member (its managed role holds `botPermissions`). `onShard: [id, count]`
   * picks its id so that a bot sharded `count` ways receives it on shard `id`.
   */
  createGuild(
    opts: {
      name?: string;
      ownerId?: string;
      everyonePermissions?: PermissionInput;
      botPermissions?: PermissionInput;
      onShard?: [number, number];
    } = {},
  ): FakeGuild {
    return this.act(() =>
      this.actions.createGuild({
        name: opts.name ?? 'Fake Guild',
        onShard: opts.onShard,
        ownerId: opts.ownerId,
        everyonePermissions: opts.everyonePermissions === undefined ? undefined : toBits(opts.everyonePermissions),
        botPermissions: opts.botPermissions === undefined ? undefined : toBits(opts.botPermissions),
      }),
    );
  }

  createTextChannel(guildId: string, opts: { name?: string; topic?: string; parentId?: string } = {}): FakeChannel {
    return this.act(() =>
      this.actions.createChannel(guildId, { name: opts.name ?? 'general', type: ChannelType.GuildText, topic: opts.topic, parentId: opts.parentId }),
    );
  }

  /** A forum channel; `tags` are its available tags (names, or objects for moderated/emoji tags). */
  createForum(guildId: string, opts: { name?: string; tags?: Array<string | { name: string; moderated?: boolean; emoji?: string }> } = {}): FakeChannel {
    return this.act(() =>
      this.actions.createChannel(guildId, {
        name: opts.name ?? 'forum',
        type: ChannelType.GuildForum,
        tags: (opts.tags ?? []).map((t) => {
          const tag = typeof t === 'string' ? { name: t } : t;
          return { id: this.state.ids.next(), name: tag.name, moderated: tag.moderated ?? false, emojiName: tag.emoji ?? null };
        }),
      }),
    );
  }

  /**
   * A thread made by a person. Private threads include the bot unless `botIsMember: false`
   * (in real life the bot joins when someone mentions it there). `fromMessageId` starts the
   * thread on that message (same id).
   */
  createThread(
    parentId: string,
    opts: {
      name: string;
      ownerId: string;
      private?: boolean;
      fromMessageId?: string;
      memberIds?: string[];
      botIsMember?: boolean;
      autoArchiveDuration?: ThreadInfo['autoArchiveDuration'];
      at?: Date | number;
    },
  ): FakeChannel {
    const parent = this.state.channel(parentId);
    const type = opts.private
      ? ChannelType.PrivateThread
      : parent.type === ChannelType.GuildAnnouncement
        ? ChannelType.AnnouncementThread
        : ChannelType.PublicThread;
    const botMember = opts.botIsMember ?? Boolean(opts.private);
    return this.act(() =>
      this.actions.createThread({
        parentId,
        name: opts.name,
        ownerId: opts.ownerId,
        type,
        fromMessageId: opts.fromMessageId,
        memberIds: [...(opts.memberIds ?? []), ...(botMember ? [this.bot.id] : [])],
        autoArchiveDuration: opts.autoArchiveDuration,
        at: toMs(opts.at),
      }),
    );
  }

  /** A forum post: a thread in the forum plus its starter message (sharing the thread's id). */
  createForumPost(
    forumId: string,
    opts: { ownerId: string; name: string; content: string; tags?: string[]; attachments?: UploadInput[]; at?: Date | number },
  ): { thread: FakeChannel; starter: FakeMessage } {
    const forum = this.state.channel(forumId);
    return this.act(() => {
      const thread = this.actions.createThread({
        parentId: forumId,
        name: opts.name,
        ownerId: opts.ownerId,
        type: ChannelType.PublicThread,
        appliedTags: this.tagIds(forum, opts.tags ?? []),
        at: toMs(opts.at),
      });
      const starter = this.actions.createMessage({
        id: thread.id,
        channelId: thread.id,
        authorId: opts.ownerId,
        content: opts.content,
        attachments: opts.attachments,
        at: toMs(opts.at),
      });
      return { thread, starter };
    });
  }

  /** A person (or, with `bot: true`, another bot) joining the guild. */
  addMember(guildId: string, opts: { username?: string; roles?: string[]; nick?: string; bot?: boolean } = {}): FakeUser {
    return this.act(() => {
      const user = this.state.addUser({ username: opts.username ?? `user${this.state.users.size}`, bot: opts.bot });
      this.actions.addMember(guildId, user, opts.roles ?? [], opts.nick ?? null);
      return user;
    });
  }

  createRole(guildId: string, opts: { name: string; permissions?: PermissionInput; mentionable?: boolean }): FakeRole {
    return this.act(() => this.actions.createRole(guildId, { name: opts.name, permissions: toBits(opts.permissions ?? 0n), mentionable: opts.mentionable }));
  }

  setMemberRoles(guildId: string, userId: string, roleIds: string[]): void {
    this.act(() => this.actions.updateMember(guildId, userId, { roleIds }));
  }

  setRolePermissions(roleId: string, permissions: PermissionInput): void {
    this.act(() => {
      const role = this.state.roles.get(roleId);
      if (!role) throw new Error(`fake-discord: unknown role ${roleId}`);
      role.permissions = toBits(permissions);
      this.actions.updateRole(role);
    });
  }

  /**
   * Channel overwrite for the bot: `{ SendMessages: false }` denies, `true` allows, `null` clears.
   * REST then answers 403 (50001 without ViewChannel, else 50013) where the bot lacks a
   * permission, and discord.js sees the same overwrite through CHANNEL_UPDATE.
   */
  setBotPermissions(channelId: string, perms: Partial<Record<PermissionName, boolean | null>>): void {
    this.setChannelPermissions(channelId, this.bot.id, perms);
  }

  /** Channel overwrite for a role (by role id; the guild id is @everyone) or a member (by user id). */
  setChannelPermissions(channelId: string, targetId: string, perms: Partial<Record<PermissionName, boolean | null>>): void {
    this.act(() => {
      const channel = this.state.channel(channelId);
      if (isThread(channel)) throw new Error("fake-discord: threads use their parent channel's permissions; set them on the parent");
      const type = this.state.roles.has(targetId) ? 0 : 1;
      let ow = channel.overwrites.find((o) => o.id === targetId);
      if (!ow) {
        ow = { id: targetId, type, allow: 0n, deny: 0n };
        channel.overwrites.push(ow);
      }
      for (const [name, value] of Object.entries(perms) as Array<[PermissionName, boolean | null]>) {
        const bit = PermissionFlagsBits[name];
        ow.allow &= ~bit;
        ow.deny &= ~bit;
        if (value === true) ow.allow |= bit;
        if (value === false) ow.deny |= bit;
      }
      channel.overwrites = channel.overwrites.filter((o) => o.allow !== 0n || o.deny !== 0n);
      this.actions.channelChanged(channel);
    });
  }

  /** Switch privileged intents in the "portal"; affects the next IDENTIFY and /applications/@me. */
  setPrivilegedIntents(p: Partial<PrivilegedIntents>): void {
    Object.assign(this.privileged, p);
  }

  /** One guild, one #general text channel and one member, the usual test starting point. */
  setupBasic(opts: { guildName?: string; channelName?: string; username?: string; onShard?: [number, number] } = {}): {
    guild: FakeGuild;
    channel: FakeChannel;
    user: FakeUser;
  } {
    const guild = this.createGuild({ name: opts.guildName, onShard: opts.onShard });
    const channel = this.createTextChannel(guild.id, { name: opts.channelName });
    const user = this.addMember(guild.id, { username: opts.username ?? 'alice' });
    return { guild, channel, user };
  }

  // ---- people acting (each dispatches the gateway event Discord would) ----------------------

  /**
   * A person posts a message → MESSAGE_CREATE. `mentionsBot` prefixes `<@bot>` unless the content
   * already mentions it; `replyTo` makes it a reply (which pings the replied author unless
   * `replyPing: false`); `dispatch: false` only stores it (history the bot never saw live).
   */
  userSays(
    channelId: string,
    userId: string,
    content: string,
    opts: {
      mentionsBot?: boolean;
      replyTo?: string;
      replyPing?: boolean;
      attachments?: UploadInput[];
      embeds?: unknown[];
      at?: Date | number;
      dispatch?: boolean;
    } = {},
  ): FakeMessage {
    const channel = this.state.channel(channelId);
    if (!this.state.member(channel.guildId, userId)) throw new Error(`fake-discord: ${userId} is not a member of guild ${channel.guildId}`);
    if (channel.type === ChannelType.GuildForum) throw new Error('fake-discord: a forum takes no messages; use createForumPost');
    const mention = `<@${this.bot.id}>`;
    const text = opts.mentionsBot && !content.includes(mention) && !content.includes(`<@!${this.bot.id}>`) ? `${mention} ${content}` : content;
    const replied = opts.replyTo ? this.state.message(opts.replyTo) : undefined;
    return this.act(() =>
      this.actions.createMessage({
        channelId,
        authorId: userId,
        content: text,
        attachments: opts.attachments,
        embeds: opts.embeds,
        reference: replied ? { messageId: replied.id, channelId: replied.channelId, guildId: replied.guildId } : null,
        allowedMentions: opts.replyPing === false ? { parse: ['users', 'roles', 'everyone'], replied_user: false } : undefined,
        at: toMs(opts.at),
        dispatch: opts.dispatch,
      }),
    );
  }

  /** A person edits their message → MESSAGE_UPDATE. */
  editMessage(messageId: string, content: string): FakeMessage {
    return this.act(() => this.actions.editMessage(this.state.message(messageId), { content }));
  }

  /** A message disappears (author or moderator) → MESSAGE_DELETE. */
  deleteMessage(messageId: string): void {
    this.act(() => this.actions.deleteMessage(this.state.message(messageId)));
  }

  /** A person reacts → MESSAGE_REACTION_ADD (emoji: unicode, or `name:id` for a custom one). */
  react(channelId: string, messageId: string, userId: string, emoji: string): void {
    this.act(() => this.actions.addReaction(this.messageIn(channelId, messageId), userId, parseEmoji(emoji)));
  }

  unreact(channelId: string, messageId: string, userId: string, emoji: string): void {
    this.act(() => this.actions.removeReaction(this.messageIn(channelId, messageId), userId, parseEmoji(emoji)));
  }

  /** A person pins a message (no 250 check: people hit Discord's limit in the client). */
  pin(messageId: string, byUserId: string): void {
    this.act(() => this.actions.pin(this.state.message(messageId), byUserId));
  }

  unpin(messageId: string): void {
    this.act(() => this.actions.unpin(this.state.message(messageId)));
  }

  typing(channelId: string, userId: string): void {
    this.act(() => this.actions.typing(channelId, userId));
  }

  /**
   * Archive (optionally also lock) → THREAD_UPDATE; this is also what Discord's auto-archive
   * looks like. `at` backdates the archive_timestamp (for sweeps that look at recent archives).
   */
  archiveThread(threadId: string, opts: { locked?: boolean; at?: Date | number } = {}): void {
    this.act(() => this.actions.updateThread(this.state.channel(threadId), { archived: true, locked: opts.locked, at: toMs(opts.at) }));
  }

  unarchiveThread(threadId: string): void {
    this.act(() => this.actions.updateThread(this.state.channel(threadId), { archived: false }));
  }

  /** Lock (moderator action) → THREAD_UPDATE; `archived: true` archives in the same update. */
  lockThread(threadId: string, opts: { archived?: boolean } = {}): void {
    this.act(() => this.actions.updateThread(this.state.channel(threadId), { locked: true, archived: opts.archived }));
  }

  /** Set a forum post's applied tags by tag name → THREAD_UPDATE. */
  setForumTags(threadId: string, tagNames: string[]): void {
    const thread = this.state.channel(threadId);
    const forum = this.state.channel(thread.parentId ?? '');
    this.act(() => this.actions.updateThread(thread, { appliedTags: this.tagIds(forum, tagNames) }));
  }

  /**
   * A person runs `/command` → INTERACTION_CREATE. `command` may include a subcommand
   * (`'memory forget'`); option types come from the commands the bot registered. The returned
   * record fills in as the bot answers (`original`, `followups`, `answered`, `ackDelayMs`).
   */
  slashCommand(channelId: string, userId: string, command: string, options: Record<string, SlashOptionValue> = {}): FakeInteraction {
    return this.act(() => {
      const { payload, id, token } = buildSlashCommand(this.state, {
        channelId,
        userId,
        command,
        options,
        attachmentSizeLimit: this.limits.maxUploadBytes,
        makeAttachment: (c, u) => this.actions.makeAttachment(c, u),
      });
      const channel = this.state.channel(channelId);
      const ix = new FakeInteraction(this.state, id, token, command.trim(), channelId, channel.guildId, userId, Date.now(), payload);
      this.interactions.add(ix);
      this.gateway.dispatch('INTERACTION_CREATE', payload, { intent: 0 });
      return ix;
    });
  }

  /**
   * A person clicks the button `customId` on a message → INTERACTION_CREATE type 3. Throws when
   * the message has no such button or it is disabled (nobody could click it).
   */
  clickButton(messageId: string, userId: string, customId: string): FakeInteraction {
    const size = this.limits.maxUploadBytes;
    const built = () => buildButtonClick(this.state, { messageId, userId, customId, attachmentSizeLimit: size });
    return this.dispatchInteraction(built, { name: customId, type: 3, userId, messageId });
  }

  /**
   * A person submits the form the bot showed in answer to `shownBy` (callback type 9) → type 5.
   * `values` by input custom_id; inputs left out keep their prefilled text. Throws when no form
   * was shown, an id is unknown, or a required input is empty.
   */
  submitModal(shownBy: FakeInteraction, userId: string, values: Record<string, string>): FakeInteraction {
    const size = this.limits.maxUploadBytes;
    const built = () => buildModalSubmit(this.state, { shownBy, userId, values, attachmentSizeLimit: size });
    return this.dispatchInteraction(built, { name: shownBy.modal?.custom_id ?? '', type: 5, userId, messageId: shownBy.messageId });
  }

  /** A person runs the message context-menu command `name` on a message → type 2, `data.type` 3. */
  runMessageCommand(name: string, messageId: string, userId: string, channelId: string): FakeInteraction {
    const size = this.limits.maxUploadBytes;
    const built = () => buildMessageCommand(this.state, { name, messageId, userId, channelId, attachmentSizeLimit: size });
    return this.dispatchInteraction(built, { name, type: 2, userId, messageId: null });
  }

  /** Every button on a message, row by row, as the bot last sent them. */
  buttonsOf(messageId: string): ButtonJson[] {
    return buttonsIn(this.state.message(messageId).components);
  }

  private dispatchInteraction(build: () => BuiltInteraction, how: { name: string; type: number; userId: string; messageId: string | null }): FakeInteraction {
    return this.act(() => {
      const { payload, id, token, channelId } = build();
      const guildId = this.state.channel(channelId).guildId;
      const ix = new FakeInteraction(this.state, id, token, how.name, channelId, guildId, how.userId, Date.now(), payload, how.type, how.messageId);
      this.interactions.add(ix);
      this.gateway.dispatch('INTERACTION_CREATE', payload, { intent: 0 });
      return ix;
    });
  }

  // ---- network trouble -------------------------------------------------------------------------

  /** Drops every gateway connection with `code` (4000: the client resumes in ~0.5 s, pitfall 5). */
  async disconnect(code = 4000): Promise<void> {
    await this.gateway.disconnect(code);
    this.changed();
  }

  /** Next RESUME gets op 9 (not resumable); the client re-identifies (after discord.js's 5 s throttle). */
  invalidateSessions(): void {
    this.gateway.invalidateSessions();
  }

  /**
   * The next matching REST call (once) gets a 429 with Discord's headers and body; discord.js
   * waits `retryAfterSeconds` and retries by itself.
   */
  rateLimitNext(matcher: RequestMatcher, retryAfterSeconds: number, opts: { global?: boolean; scope?: 'user' | 'shared' | 'global' } = {}): void {
    this.rest.addFault(rateLimitFault(matcher, retryAfterSeconds, opts));
  }

  /**
   * The next matching REST call (once) fails with this Discord error, e.g. `{ status: 500 }` or
   * `{ status: 404, code: 10008 }`. discord.js retries 5xx `rest.retries` times (default 3).
   */
  failNext(matcher: RequestMatcher, error: { status: number; code?: number; message?: string }): void {
    this.rest.addFault(errorFault(matcher, error));
  }

  // ---- looking at the world --------------------------------------------------------------------

  message(id: string): FakeMessage {
    return this.state.message(id);
  }

  channel(id: string): FakeChannel {
    return this.state.channel(id);
  }

  /** The channel's messages, oldest first, including system notices (ephemeral replies excluded). */
  messagesIn(channelId: string): FakeMessage[] {
    return this.state.messagesIn(channelId);
  }

  /** What the bot said in the channel (its messages and interaction responses), oldest first. */
  botMessagesIn(channelId: string): FakeMessage[] {
    return this.state.messagesIn(channelId).filter((m) => m.authorId === this.bot.id && ANSWER_TYPES.has(m.type));
  }

  /** Pins, oldest pin first, with the pinned message. */
  pinsIn(channelId: string): Array<PinRecord & { message: FakeMessage }> {
    return this.state.pinsIn(channelId).map((p) => ({ ...p, message: this.state.message(p.messageId) }));
  }

  /** The bot's typing calls in the channel. */
  typingIn(channelId: string): TypingRecord[] {
    return this.state.typing.filter((t) => t.channelId === channelId && t.userId === this.bot.id);
  }

  /** Commands the bot registered for a guild, or globally with `null`, as it sent them. */
  commandsIn(guildId: string | null): RegisteredCommand[] {
    return [...this.state.commands.values()].filter((c) => c.guildId === guildId);
  }

  /** Who the message actually notifies after allowed_mentions (see also `pingsNobody`). */
  pingsOf(messageOrId: FakeMessage | string): Pings {
    return (typeof messageOrId === 'string' ? this.state.message(messageOrId) : messageOrId).pings;
  }

  pingsNobody(messageOrId: FakeMessage | string): boolean {
    return pingsNobody(this.pingsOf(messageOrId));
  }

  requestsTo(matcher: RequestMatcher): RequestRecord[] {
    return this.rest.requests.filter((r) => requestMatches(matcher, r));
  }

  // ---- waiting ---------------------------------------------------------------------------------

  /**
   * Resolves with the first truthy value of `check`, re-evaluated after every change in the
   * fake and every 25 ms (for conditions outside it, like files the bot writes).
   */
  waitFor<T>(check: () => T, timeoutMs = 5000, what = 'condition'): Promise<NonNullable<T>> {
    return this.waiters.waitFor(check, timeoutMs, what);
  }

  /** The first bot answer in the channel newer than `after` (a message id) that matches. */
  waitForBotMessage(channelId: string, opts: { after?: string; match?: (m: FakeMessage) => boolean; timeoutMs?: number } = {}): Promise<FakeMessage> {
    return this.waitFor(
      () => this.botMessagesIn(channelId).find((m) => (!opts.after || compareSnowflakes(m.id, opts.after) > 0) && (!opts.match || opts.match(m))),
      opts.timeoutMs,
      `a bot message in ${channelId}${opts.after ? ` after ${opts.after}` : ''}`,
    );
  }

  waitForRequest(matcher: RequestMatcher, timeoutMs = 5000): Promise<RequestRecord> {
    return this.waitFor(() => this.rest.requests.find((r) => r.status !== 0 && requestMatches(matcher, r)), timeoutMs, `request ${String(matcher)}`);
  }

  /** Resolves when the interaction has a visible answer (non-loading original or a follow-up). */
  waitForAnswer(ix: FakeInteraction, timeoutMs = 5000): Promise<FakeInteraction> {
    return this.waitFor(() => (ix.answered ? ix : undefined), timeoutMs, `an answer to /${ix.commandName}`);
  }

  /** Closes the gateway, every HTTP connection (undici keeps them alive, pitfall 13) and the server. */
  async stop(): Promise<void> {
    this.waiters.abortAll('fake-discord stopped');
    await this.gateway.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ---- internals -------------------------------------------------------------------------------

  private act<T>(fn: () => T): T {
    const result = fn();
    this.changed();
    return result;
  }

  private changed(): void {
    this.events.emit('change');
  }

  private messageIn(channelId: string, messageId: string): FakeMessage {
    const m = this.state.message(messageId);
    if (m.channelId !== channelId) throw new Error(`fake-discord: message ${messageId} is not in channel ${channelId}`);
    return m;
  }

  private tagIds(forum: FakeChannel, names: string[]): string[] {
    return names.map((name) => {
      const tag = forum.availableTags?.find((t) => t.name === name);
      if (!tag) throw new Error(`fake-discord: forum ${forum.id} has no tag named ${name}`);
      return tag.id;
    });
  }

  private allowedPrivilegedIntents(): number {
    return (
      (this.privileged.messageContent ? GatewayIntentBits.MessageContent : 0) |
      (this.privileged.guildMembers ? GatewayIntentBits.GuildMembers : 0) |
      (this.privileged.presences ? GatewayIntentBits.GuildPresences : 0)
    );
  }

  private applicationFlags(): number {
    return (
      (this.privileged.messageContent ? ApplicationFlags.GatewayMessageContent : 0) |
      (this.privileged.guildMembers ? ApplicationFlags.GatewayGuildMembers : 0) |
      (this.privileged.presences ? ApplicationFlags.GatewayPresence : 0)
    );
  }

  private describeActivity(): string {
    const last = this.rest.requests.slice(-5).map((r) => `${r.method} ${r.path} → ${r.status}`);
    const parts = [
      last.length ? `\n  last requests: ${last.join('; ')}` : '',
      this.rest.unhandled.length ? `\n  unhandled: ${this.rest.unhandled.map((r) => `${r.method} ${r.path}`).join('; ')}` : '',
      this.problems.length ? `\n  problems: ${this.problems.join('; ')}` : '',
    ];
    return parts.join('');
  }
}

function toMs(at: Date | number | undefined): number | undefined {
  return at instanceof Date ? at.getTime() : at;
}
