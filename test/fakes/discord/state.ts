/**
 * The fake Discord's in-memory world: plain records and lookups, no I/O and no gateway.
 *
 * Mutations that other parties must hear about (gateway dispatches) live in `actions.ts`; this
 * module only stores things and answers questions about them (who can see what, which messages
 * a channel holds, in id order).
 */
import { ChannelType } from 'discord.js';
import { SnowflakeGenerator, compareSnowflakes } from './snowflake';
import { type Overwrite, type PermissionName, channelPermissions, basePermissions, has } from './permissions';

export interface FakeUser {
  id: string;
  username: string;
  globalName: string | null;
  bot: boolean;
}

export interface FakeRole {
  id: string;
  guildId: string;
  name: string;
  permissions: bigint;
  position: number;
  mentionable: boolean;
  /** The bot's own integration role is managed (cannot be given to people); set to the bot's id. */
  managedByBotId: string | null;
  color: number;
}

export interface FakeMember {
  guildId: string;
  userId: string;
  /** Role ids, without the @everyone role (Discord's member objects omit it too). */
  roleIds: string[];
  nick: string | null;
  joinedAt: number;
}

export interface FakeGuild {
  id: string;
  name: string;
  ownerId: string;
  createdAt: number;
  /** The managed role Discord gives the bot when it joins. */
  botRoleId: string;
}

export interface ForumTag {
  id: string;
  name: string;
  moderated: boolean;
  emojiName: string | null;
}

export interface ThreadInfo {
  ownerId: string;
  archived: boolean;
  locked: boolean;
  /** Discord's archive_timestamp: last archive-status change (creation time until then). */
  archiveTimestamp: number;
  autoArchiveDuration: 60 | 1440 | 4320 | 10080;
  createdAt: number;
  /** Private threads only: whether non-moderators can add others. */
  invitable: boolean;
  memberIds: Set<string>;
  /** Forum posts only: ids of applied forum tags. */
  appliedTags: string[];
  /** Messages in the thread, not counting the starter message (Discord's message_count). */
  messageCount: number;
}

export interface FakeChannel {
  id: string;
  guildId: string;
  type: ChannelType;
  name: string;
  /** Category for channels; the parent text/forum channel for threads. */
  parentId: string | null;
  topic: string | null;
  position: number;
  overwrites: Overwrite[];
  lastMessageId: string | null;
  lastPinAt: number | null;
  /** Present on threads (types 10, 11, 12). */
  thread?: ThreadInfo;
  /** Present on forum channels (type 15). */
  availableTags?: ForumTag[];
}

export interface FakeAttachment {
  id: string;
  filename: string;
  contentType: string | null;
  size: number;
  content: Buffer;
  description: string | null;
  /** Served by the fake at this URL (outside /api, no auth), like Discord's CDN. */
  url: string;
}

export interface FakeReaction {
  emoji: { id: string | null; name: string };
  userIds: Set<string>;
}

export interface AllowedMentions {
  parse?: Array<'users' | 'roles' | 'everyone'>;
  users?: string[];
  roles?: string[];
  replied_user?: boolean;
}

/** Who a message actually notifies, after allowed_mentions and permissions are applied. */
export interface Pings {
  everyone: boolean;
  users: string[];
  roles: string[];
  /** Author of the replied-to message when the reply pings them. */
  repliedUser: string | null;
}

export interface MessageReference {
  messageId: string | null;
  channelId: string;
  guildId: string | null;
}

export interface FakeMessage {
  id: string;
  channelId: string;
  guildId: string;
  authorId: string;
  content: string;
  /** Discord MessageType: 0 default, 19 reply, 20 slash-command reply, 6 pin notice, 18 thread created. */
  type: number;
  /** MessageFlags bits: 64 ephemeral, 128 loading (deferred interaction). */
  flags: number;
  createdAt: number;
  editedAt: number | null;
  attachments: FakeAttachment[];
  embeds: unknown[];
  components: unknown[];
  reference: MessageReference | null;
  /** Keyed by `emojiKey()`. */
  reactions: Map<string, FakeReaction>;
  pinned: boolean;
  /** allowed_mentions exactly as the sender sent it; undefined when the request had none. */
  allowedMentions: AllowedMentions | undefined;
  pings: Pings;
  nonce: string | number | null;
  tts: boolean;
  webhookId: string | null;
  /** Set on interaction responses (original and follow-ups). */
  /** `type` is the InteractionType (2 command, 3 click, 5 form); absent means 2. */
  interaction: { id: string; name: string; userId: string; type?: number } | null;
  /** A thread started from this message (its id equals the message id). */
  threadId: string | null;
}

export interface PinRecord {
  messageId: string;
  pinnedAt: number;
  byUserId: string;
}

export interface TypingRecord {
  channelId: string;
  userId: string;
  at: number;
}

export interface RegisteredCommand {
  id: string;
  applicationId: string;
  /** null for global commands. */
  guildId: string | null;
  name: string;
  type: number;
  /** The JSON the bot sent, as sent. */
  raw: Record<string, unknown>;
  version: string;
}

export const THREAD_TYPES: ReadonlySet<ChannelType> = new Set([ChannelType.PublicThread, ChannelType.PrivateThread, ChannelType.AnnouncementThread]);

export function isThread(c: FakeChannel): boolean {
  return THREAD_TYPES.has(c.type);
}

export function emojiKey(emoji: { id: string | null; name: string }): string {
  return emoji.id ? `${emoji.name}:${emoji.id}` : emoji.name;
}

/** Parses the emoji form used in routes and by tests: a unicode emoji or `name:id` for custom ones. */
export function parseEmoji(text: string): { id: string | null; name: string } {
  const custom = /^<?a?:?([\w~]+):(\d+)>?$/.exec(text);
  return custom ? { name: custom[1], id: custom[2] } : { id: null, name: text };
}

export class FakeState {
  readonly ids = new SnowflakeGenerator();
  readonly users = new Map<string, FakeUser>();
  readonly guilds = new Map<string, FakeGuild>();
  readonly roles = new Map<string, FakeRole>();
  readonly channels = new Map<string, FakeChannel>();
  /** Every message by id, including ephemeral interaction replies (which no channel lists). */
  readonly messages = new Map<string, FakeMessage>();
  /** Pins per channel, oldest first. */
  readonly pins = new Map<string, PinRecord[]>();
  /** Every uploaded or attached file by attachment id, for serving its URL. */
  readonly attachments = new Map<string, FakeAttachment>();
  readonly typing: TypingRecord[] = [];
  readonly commands = new Map<string, RegisteredCommand>();
  readonly bot: FakeUser;
  readonly applicationId: string;
  /** Base URL of the HTTP server (set once it listens); attachment URLs hang off it. */
  baseUrl = 'http://127.0.0.1:0';

  private readonly members = new Map<string, FakeMember>();
  /** Messages listed in each channel, ascending by id (= time). */
  private readonly channelMessages = new Map<string, FakeMessage[]>();

  constructor(botName: string) {
    this.bot = this.addUser({ username: botName, bot: true });
    // A bot's user id equals its application id on Discord; code may rely on that.
    this.applicationId = this.bot.id;
  }

  addUser(input: { username: string; bot?: boolean; globalName?: string | null; id?: string }): FakeUser {
    const user: FakeUser = {
      id: input.id ?? this.ids.next(),
      username: input.username,
      globalName: input.globalName ?? null,
      bot: input.bot ?? false,
    };
    this.users.set(user.id, user);
    return user;
  }

  user(id: string): FakeUser {
    const u = this.users.get(id);
    if (!u) throw new Error(`fake-discord: unknown user ${id}`);
    return u;
  }

  guild(id: string): FakeGuild {
    const g = this.guilds.get(id);
    if (!g) throw new Error(`fake-discord: unknown guild ${id}`);
    return g;
  }

  channel(id: string): FakeChannel {
    const c = this.channels.get(id);
    if (!c) throw new Error(`fake-discord: unknown channel ${id}`);
    return c;
  }

  message(id: string): FakeMessage {
    const m = this.messages.get(id);
    if (!m) throw new Error(`fake-discord: unknown message ${id}`);
    return m;
  }

  setMember(member: FakeMember): void {
    this.members.set(`${member.guildId}:${member.userId}`, member);
  }

  member(guildId: string, userId: string): FakeMember | undefined {
    return this.members.get(`${guildId}:${userId}`);
  }

  membersOf(guildId: string): FakeMember[] {
    return [...this.members.values()].filter((m) => m.guildId === guildId);
  }

  rolesOf(guildId: string): FakeRole[] {
    return [...this.roles.values()].filter((r) => r.guildId === guildId).sort((a, b) => a.position - b.position);
  }

  channelsOf(guildId: string, opts: { threads: boolean }): FakeChannel[] {
    return [...this.channels.values()].filter((c) => c.guildId === guildId && isThread(c) === opts.threads);
  }

  threadsOf(parentId: string): FakeChannel[] {
    return [...this.channels.values()].filter((c) => isThread(c) && c.parentId === parentId);
  }

  /** Adds a message to its channel's list, keeping id order even for backdated messages. */
  insertMessage(m: FakeMessage, listed: boolean): void {
    this.messages.set(m.id, m);
    if (!listed) return;
    const list = this.channelMessages.get(m.channelId) ?? [];
    this.channelMessages.set(m.channelId, list);
    let i = list.length;
    while (i > 0 && compareSnowflakes(list[i - 1].id, m.id) > 0) i--;
    list.splice(i, 0, m);
  }

  removeMessage(m: FakeMessage): void {
    this.messages.delete(m.id);
    const list = this.channelMessages.get(m.channelId);
    const i = list ? list.indexOf(m) : -1;
    if (list && i >= 0) list.splice(i, 1);
    const pins = this.pins.get(m.channelId);
    if (pins)
      this.pins.set(
        m.channelId,
        pins.filter((p) => p.messageId !== m.id),
      );
  }

  /** The channel's messages, oldest first (a copy). */
  messagesIn(channelId: string): FakeMessage[] {
    return [...(this.channelMessages.get(channelId) ?? [])];
  }

  pinsIn(channelId: string): PinRecord[] {
    return this.pins.get(channelId) ?? [];
  }

  /** Channel whose overwrites apply: threads use their parent's (threads have no overwrites). */
  permissionChannel(channel: FakeChannel): FakeChannel {
    return isThread(channel) && channel.parentId ? this.channel(channel.parentId) : channel;
  }

  guildPermissions(guildId: string, userId: string): bigint {
    const subject = this.permissionSubject(guildId, userId);
    return subject ? basePermissions(subject) : 0n;
  }

  permissionsIn(channelId: string, userId: string): bigint {
    const channel = this.channel(channelId);
    const subject = this.permissionSubject(channel.guildId, userId);
    if (!subject) return 0n;
    const bits = channelPermissions(subject, this.permissionChannel(channel).overwrites);
    // A private thread is invisible to non-members unless they may manage threads.
    if (channel.type === ChannelType.PrivateThread && !channel.thread?.memberIds.has(userId) && !has(bits, 'ManageThreads')) {
      return 0n;
    }
    return bits;
  }

  can(userId: string, channelId: string, permission: PermissionName): boolean {
    return has(this.permissionsIn(channelId, userId), permission);
  }

  private permissionSubject(guildId: string, userId: string) {
    const guild = this.guilds.get(guildId);
    const member = this.member(guildId, userId);
    if (!guild || !member) return null;
    const everyone = this.roles.get(guildId);
    return {
      guildId,
      ownerId: guild.ownerId,
      userId,
      everyone: everyone?.permissions ?? 0n,
      roles: member.roleIds.map((id) => this.roles.get(id)).filter((r): r is FakeRole => !!r),
    };
  }
}
