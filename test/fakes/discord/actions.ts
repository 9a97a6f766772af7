/**
 * Mutations of the world that Discord would announce on the gateway.
 *
 * Both sides use these: REST routes (the bot acting) and the facade (a person acting). Keeping
 * one code path means a bot's own message is echoed as MESSAGE_CREATE exactly like a person's
 * (real Discord does that; the bot must ignore itself), and a pin always leaves Discord's
 * "pinned a message" notice behind.
 */
import { ChannelType, GatewayIntentBits, MessageFlags } from 'discord.js';
import { effectivePings } from './mentions';
import { channelPayload, guildCreatePayload, memberPayload, messagePayload, rolePayload } from './payloads';
import { type Overwrite, DEFAULT_BOT_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS } from './permissions';
import { snowflakeTime, compareSnowflakes } from './snowflake';
import {
  type AllowedMentions,
  type FakeAttachment,
  type FakeChannel,
  type FakeGuild,
  type FakeMessage,
  type FakeRole,
  type FakeState,
  type FakeUser,
  type ForumTag,
  type MessageReference,
  type ThreadInfo,
  emojiKey,
  isThread,
} from './state';

type Json = Record<string, unknown>;

export interface DispatchOptions {
  /** Gateway intent bit a session needs to receive the event; 0 for always (interactions). */
  intent: number;
  /** Payload for sessions without the MessageContent intent (content, embeds, attachments blanked). */
  withoutContent?: Json;
}

export interface Dispatcher {
  dispatch(event: string, payload: Json, opts: DispatchOptions): void;
}

export interface UploadInput {
  filename: string;
  content: string | Buffer;
  contentType?: string | null;
  description?: string | null;
}

export interface NewMessage {
  channelId: string;
  authorId: string;
  content?: string;
  /** Defaults to 19 (reply) when `reference` points at a message, else 0. */
  type?: number;
  flags?: number;
  attachments?: UploadInput[];
  embeds?: unknown[];
  components?: unknown[];
  reference?: MessageReference | null;
  allowedMentions?: AllowedMentions;
  nonce?: string | number | null;
  tts?: boolean;
  webhookId?: string | null;
  interaction?: FakeMessage['interaction'];
  /** Backdate the message (its id encodes this time). */
  at?: number;
  /** Forum starter messages share their thread's id. */
  id?: string;
  /** false: store only (seeding history the bot never saw live). */
  dispatch?: boolean;
}

export interface NewThread {
  parentId: string;
  name: string;
  ownerId: string;
  type: ChannelType.PublicThread | ChannelType.PrivateThread | ChannelType.AnnouncementThread;
  /** Thread started from this message: the thread id equals the message id. */
  fromMessageId?: string;
  memberIds?: string[];
  invitable?: boolean;
  autoArchiveDuration?: ThreadInfo['autoArchiveDuration'];
  appliedTags?: string[];
  at?: number;
}

export class Actions {
  constructor(
    private readonly state: FakeState,
    private readonly gateway: Dispatcher,
    private readonly opts: { systemMessages: boolean },
  ) {}

  // ---- guilds, roles, members, channels ------------------------------------------------------

  createGuild(input: { name: string; ownerId?: string; everyonePermissions?: bigint; botPermissions?: bigint; onShard?: [number, number] }): FakeGuild {
    const s = this.state;
    const id = input.onShard ? s.ids.nextOnShard(...input.onShard) : s.ids.next();
    const owner = input.ownerId ? s.user(input.ownerId) : s.addUser({ username: `owner-${id.slice(-4)}` });
    const now = Date.now();
    const botRole: FakeRole = {
      id: s.ids.next(),
      guildId: id,
      name: s.bot.username,
      permissions: input.botPermissions ?? DEFAULT_BOT_PERMISSIONS,
      position: 1,
      mentionable: false,
      managedByBotId: s.bot.id,
      color: 0,
    };
    const guild: FakeGuild = { id, name: input.name, ownerId: owner.id, createdAt: now, botRoleId: botRole.id };
    s.guilds.set(id, guild);
    // The @everyone role shares the guild's id (Discord convention discord.js relies on).
    s.roles.set(id, {
      id,
      guildId: id,
      name: '@everyone',
      permissions: input.everyonePermissions ?? DEFAULT_EVERYONE_PERMISSIONS,
      position: 0,
      mentionable: false,
      managedByBotId: null,
      color: 0,
    });
    s.roles.set(botRole.id, botRole);
    s.setMember({ guildId: id, userId: owner.id, roleIds: [], nick: null, joinedAt: now });
    s.setMember({ guildId: id, userId: s.bot.id, roleIds: [botRole.id], nick: null, joinedAt: now });
    // Sessions already connected learn about a guild joined later through GUILD_CREATE.
    this.gateway.dispatch('GUILD_CREATE', guildCreatePayload(s, id), { intent: GatewayIntentBits.Guilds });
    return guild;
  }

  createRole(guildId: string, input: { name: string; permissions: bigint; mentionable?: boolean }): FakeRole {
    const s = this.state;
    const role: FakeRole = {
      id: s.ids.next(),
      guildId,
      name: input.name,
      permissions: input.permissions,
      position: s.rolesOf(guildId).length,
      mentionable: input.mentionable ?? false,
      managedByBotId: null,
      color: 0,
    };
    s.roles.set(role.id, role);
    this.gateway.dispatch('GUILD_ROLE_CREATE', { guild_id: guildId, role: rolePayload(role) }, { intent: GatewayIntentBits.Guilds });
    return role;
  }

  updateRole(role: FakeRole): void {
    this.gateway.dispatch('GUILD_ROLE_UPDATE', { guild_id: role.guildId, role: rolePayload(role) }, { intent: GatewayIntentBits.Guilds });
  }

  addMember(guildId: string, user: FakeUser, roleIds: string[], nick: string | null): void {
    const s = this.state;
    const member = { guildId, userId: user.id, roleIds, nick, joinedAt: Date.now() };
    s.setMember(member);
    this.gateway.dispatch(
      'GUILD_MEMBER_ADD',
      { guild_id: guildId, ...memberPayload(s, member, { withUser: true }) },
      { intent: GatewayIntentBits.GuildMembers },
    );
  }

  updateMember(guildId: string, userId: string, patch: { roleIds?: string[]; nick?: string | null }): void {
    const s = this.state;
    const member = s.member(guildId, userId);
    if (!member) throw new Error(`fake-discord: ${userId} is not a member of ${guildId}`);
    if (patch.roleIds) member.roleIds = [...patch.roleIds];
    if (patch.nick !== undefined) member.nick = patch.nick;
    this.gateway.dispatch(
      'GUILD_MEMBER_UPDATE',
      { guild_id: guildId, ...memberPayload(s, member, { withUser: true }) },
      { intent: GatewayIntentBits.GuildMembers },
    );
  }

  createChannel(
    guildId: string,
    input: { name: string; type: ChannelType; parentId?: string | null; topic?: string | null; overwrites?: Overwrite[]; tags?: ForumTag[] },
  ): FakeChannel {
    const s = this.state;
    const channel: FakeChannel = {
      id: s.ids.next(),
      guildId,
      type: input.type,
      name: input.name,
      parentId: input.parentId ?? null,
      topic: input.topic ?? null,
      position: s.channelsOf(guildId, { threads: false }).length,
      overwrites: input.overwrites ?? [],
      lastMessageId: null,
      lastPinAt: null,
      ...(input.type === ChannelType.GuildForum ? { availableTags: input.tags ?? [] } : {}),
    };
    s.channels.set(channel.id, channel);
    this.gateway.dispatch('CHANNEL_CREATE', channelPayload(s, channel), { intent: GatewayIntentBits.Guilds });
    return channel;
  }

  /** Announces a changed channel or thread (overwrites, name, archive state, tags…). */
  channelChanged(channel: FakeChannel): void {
    const event = isThread(channel) ? 'THREAD_UPDATE' : 'CHANNEL_UPDATE';
    if (isThread(channel) && !this.botSees(channel.id)) return;
    this.gateway.dispatch(event, channelPayload(this.state, channel), { intent: GatewayIntentBits.Guilds });
  }

  // ---- threads ---------------------------------------------------------------------------------

  createThread(input: NewThread): FakeChannel {
    const s = this.state;
    const parent = s.channel(input.parentId);
    const at = input.at ?? Date.now();
    const id = input.fromMessageId ?? (input.at !== undefined ? s.ids.at(at) : s.ids.next());
    const createdAt = at;
    const thread: FakeChannel = {
      id,
      guildId: parent.guildId,
      type: input.type,
      name: input.name,
      parentId: parent.id,
      topic: null,
      position: 0,
      overwrites: [],
      lastMessageId: null,
      lastPinAt: null,
      thread: {
        ownerId: input.ownerId,
        archived: false,
        locked: false,
        archiveTimestamp: createdAt,
        autoArchiveDuration: input.autoArchiveDuration ?? 1440,
        createdAt,
        invitable: input.invitable ?? true,
        memberIds: new Set([input.ownerId, ...(input.memberIds ?? [])]),
        appliedTags: input.appliedTags ?? [],
        messageCount: 0,
      },
    };
    s.channels.set(id, thread);
    if (input.fromMessageId) s.message(input.fromMessageId).threadId = id;
    if (this.botSees(id)) {
      this.gateway.dispatch('THREAD_CREATE', { ...channelPayload(s, thread), newly_created: true }, { intent: GatewayIntentBits.Guilds });
    }
    // Discord leaves a "started a thread" notice in the parent for public threads made without a
    // starter message (not for forum posts, not for private threads).
    const noticeWanted = this.opts.systemMessages && !input.fromMessageId && input.type === ChannelType.PublicThread && parent.type !== ChannelType.GuildForum;
    if (noticeWanted) {
      this.createMessage({
        channelId: parent.id,
        authorId: input.ownerId,
        type: 18,
        content: input.name,
        reference: { messageId: null, channelId: id, guildId: parent.guildId },
        at: input.at,
      });
    }
    return thread;
  }

  updateThread(
    thread: FakeChannel,
    patch: Partial<Pick<ThreadInfo, 'archived' | 'locked' | 'autoArchiveDuration' | 'invitable' | 'appliedTags'>> & {
      name?: string;
      /** When the archive state changed (default now); lets tests backdate an archive. */
      at?: number;
    },
  ): void {
    const t = thread.thread;
    if (!t) throw new Error(`fake-discord: ${thread.id} is not a thread`);
    if (patch.name !== undefined) thread.name = patch.name;
    if (patch.archived !== undefined && patch.archived !== t.archived) {
      t.archived = patch.archived;
      t.archiveTimestamp = patch.at ?? Date.now();
    }
    if (patch.locked !== undefined) t.locked = patch.locked;
    if (patch.autoArchiveDuration !== undefined) t.autoArchiveDuration = patch.autoArchiveDuration;
    if (patch.invitable !== undefined) t.invitable = patch.invitable;
    if (patch.appliedTags !== undefined) t.appliedTags = [...patch.appliedTags];
    this.channelChanged(thread);
  }

  // ---- messages --------------------------------------------------------------------------------

  createMessage(input: NewMessage): FakeMessage {
    const s = this.state;
    const channel = s.channel(input.channelId);
    // Seeded history (dispatch: false) leaves an archived thread as it is.
    if (channel.thread?.archived && input.dispatch !== false) {
      if (channel.thread.locked && !s.can(input.authorId, channel.id, 'ManageThreads')) {
        throw new Error(`fake-discord: thread ${channel.id} is locked`);
      }
      // Posting in an archived, unlocked thread reopens it (Discord behaviour).
      this.updateThread(channel, { archived: false });
    }
    const id = input.id ?? (input.at !== undefined ? s.ids.at(input.at) : s.ids.next());
    const createdAt = input.at ?? snowflakeTime(id);
    const flags = input.flags ?? 0;
    const reference = input.reference ?? null;
    const replied = reference?.messageId ? s.messages.get(reference.messageId) : undefined;
    const type = input.type ?? (replied ? 19 : 0);
    const content = input.content ?? '';
    const message: FakeMessage = {
      id,
      channelId: channel.id,
      guildId: channel.guildId,
      authorId: input.authorId,
      content,
      type,
      flags,
      createdAt,
      editedAt: null,
      attachments: (input.attachments ?? []).map((a) => this.makeAttachment(channel.id, a)),
      embeds: input.embeds ?? [],
      components: input.components ?? [],
      reference,
      reactions: new Map(),
      pinned: false,
      allowedMentions: input.allowedMentions,
      pings: this.pings(channel.id, input.authorId, content, input.allowedMentions, type === 19 ? replied : undefined),
      nonce: input.nonce ?? null,
      tts: input.tts ?? false,
      webhookId: input.webhookId ?? null,
      interaction: input.interaction ?? null,
      threadId: null,
    };
    // Ephemeral interaction replies exist for their interaction only, never in channel history.
    const listed = (flags & MessageFlags.Ephemeral) === 0;
    s.insertMessage(message, listed);
    if (listed) {
      if (!channel.lastMessageId || compareSnowflakes(id, channel.lastMessageId) > 0) channel.lastMessageId = id;
      if (channel.thread && id !== channel.id) channel.thread.messageCount++;
    }
    if (listed && input.dispatch !== false) this.dispatchMessage('MESSAGE_CREATE', message);
    return message;
  }

  editMessage(
    message: FakeMessage,
    patch: {
      content?: string;
      embeds?: unknown[];
      components?: unknown[];
      attachments?: FakeAttachment[];
      newFiles?: UploadInput[];
      flags?: number;
      allowedMentions?: AllowedMentions;
    },
  ): FakeMessage {
    if (patch.content !== undefined) message.content = patch.content;
    if (patch.embeds !== undefined) message.embeds = patch.embeds;
    if (patch.components !== undefined) message.components = patch.components;
    if (patch.attachments !== undefined) message.attachments = patch.attachments;
    if (patch.newFiles?.length) {
      message.attachments = [...message.attachments, ...patch.newFiles.map((f) => this.makeAttachment(message.channelId, f))];
    }
    if (patch.flags !== undefined) message.flags = patch.flags;
    if (patch.allowedMentions !== undefined) message.allowedMentions = patch.allowedMentions;
    message.editedAt = Date.now();
    const replied = message.reference?.messageId ? this.state.messages.get(message.reference.messageId) : undefined;
    message.pings = this.pings(message.channelId, message.authorId, message.content, message.allowedMentions, message.type === 19 ? replied : undefined);
    if ((message.flags & MessageFlags.Ephemeral) === 0) this.dispatchMessage('MESSAGE_UPDATE', message);
    return message;
  }

  deleteMessage(message: FakeMessage): void {
    const wasPinned = message.pinned;
    this.state.removeMessage(message);
    if ((message.flags & MessageFlags.Ephemeral) !== 0 || !this.botSees(message.channelId)) return;
    this.gateway.dispatch(
      'MESSAGE_DELETE',
      { id: message.id, channel_id: message.channelId, guild_id: message.guildId },
      { intent: GatewayIntentBits.GuildMessages },
    );
    if (wasPinned) this.pinsChanged(this.state.channel(message.channelId));
  }

  pin(message: FakeMessage, byUserId: string): void {
    const s = this.state;
    if (message.pinned) return;
    const pins = s.pins.get(message.channelId) ?? [];
    // Strictly increasing pin times: the pins route pages by `before=<pinned_at>`, and two pins in
    // the same millisecond would make a page boundary skip one.
    const now = Math.max(Date.now(), (pins[pins.length - 1]?.pinnedAt ?? 0) + 1);
    s.pins.set(message.channelId, pins);
    pins.push({ messageId: message.id, pinnedAt: now, byUserId });
    message.pinned = true;
    const channel = s.channel(message.channelId);
    channel.lastPinAt = now;
    this.pinsChanged(channel);
    if (this.opts.systemMessages) {
      this.createMessage({
        channelId: channel.id,
        authorId: byUserId,
        type: 6,
        reference: { messageId: message.id, channelId: channel.id, guildId: channel.guildId },
      });
    }
  }

  unpin(message: FakeMessage): void {
    const s = this.state;
    if (!message.pinned) return;
    const remaining = s.pinsIn(message.channelId).filter((p) => p.messageId !== message.id);
    s.pins.set(message.channelId, remaining);
    message.pinned = false;
    const channel = s.channel(message.channelId);
    channel.lastPinAt = remaining.length ? remaining[remaining.length - 1].pinnedAt : null;
    this.pinsChanged(channel);
  }

  /** Returns false when the user had already reacted with that emoji (no event then). */
  addReaction(message: FakeMessage, userId: string, emoji: { id: string | null; name: string }): boolean {
    const key = emojiKey(emoji);
    const reaction = message.reactions.get(key) ?? { emoji, userIds: new Set<string>() };
    message.reactions.set(key, reaction);
    if (reaction.userIds.has(userId)) return false;
    reaction.userIds.add(userId);
    if (!this.botSees(message.channelId)) return true;
    const member = this.state.member(message.guildId, userId);
    this.gateway.dispatch(
      'MESSAGE_REACTION_ADD',
      {
        user_id: userId,
        channel_id: message.channelId,
        message_id: message.id,
        guild_id: message.guildId,
        // With the member (and its user) discord.js can build the reacting user without a fetch.
        ...(member ? { member: memberPayload(this.state, member, { withUser: true }) } : {}),
        emoji,
        message_author_id: message.authorId,
        burst: false,
        burst_colors: [],
        type: 0,
      },
      { intent: GatewayIntentBits.GuildMessageReactions },
    );
    return true;
  }

  removeReaction(message: FakeMessage, userId: string, emoji: { id: string | null; name: string }): boolean {
    const key = emojiKey(emoji);
    const reaction = message.reactions.get(key);
    if (!reaction?.userIds.delete(userId)) return false;
    if (reaction.userIds.size === 0) message.reactions.delete(key);
    if (!this.botSees(message.channelId)) return true;
    this.gateway.dispatch(
      'MESSAGE_REACTION_REMOVE',
      { user_id: userId, channel_id: message.channelId, message_id: message.id, guild_id: message.guildId, emoji, burst: false, type: 0 },
      { intent: GatewayIntentBits.GuildMessageReactions },
    );
    return true;
  }

  typing(channelId: string, userId: string): void {
    this.state.typing.push({ channelId, userId, at: Date.now() });
    if (userId === this.state.bot.id || !this.botSees(channelId)) return;
    const channel = this.state.channel(channelId);
    const member = this.state.member(channel.guildId, userId);
    this.gateway.dispatch(
      'TYPING_START',
      {
        channel_id: channelId,
        guild_id: channel.guildId,
        user_id: userId,
        timestamp: Math.floor(Date.now() / 1000),
        ...(member ? { member: memberPayload(this.state, member, { withUser: true }) } : {}),
      },
      { intent: GatewayIntentBits.GuildMessageTyping },
    );
  }

  // ---- helpers ---------------------------------------------------------------------------------

  botSees(channelId: string): boolean {
    return this.state.can(this.state.bot.id, channelId, 'ViewChannel');
  }

  /** Stores an upload as an attachment served at its URL by the fake. */
  makeAttachment(channelId: string, a: UploadInput): FakeAttachment {
    const id = this.state.ids.next();
    const content = typeof a.content === 'string' ? Buffer.from(a.content) : a.content;
    const attachment: FakeAttachment = {
      id,
      filename: a.filename,
      contentType: a.contentType ?? guessContentType(a.filename),
      size: content.length,
      content,
      description: a.description ?? null,
      url: `${this.state.baseUrl}/attachments/${channelId}/${id}/${encodeURIComponent(a.filename)}`,
    };
    this.state.attachments.set(id, attachment);
    return attachment;
  }

  private pings(channelId: string, authorId: string, content: string, allowed: AllowedMentions | undefined, replied?: FakeMessage) {
    const s = this.state;
    const canEveryone = s.can(authorId, channelId, 'MentionEveryone');
    return effectivePings(content, allowed, {
      repliedUserId: replied && replied.authorId !== authorId ? replied.authorId : null,
      canMentionEveryone: canEveryone,
      canMentionRole: (roleId) => canEveryone || s.roles.get(roleId)?.mentionable === true,
      userExists: (userId) => s.users.has(userId),
    });
  }

  private dispatchMessage(event: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE', message: FakeMessage): void {
    if (!this.botSees(message.channelId)) return;
    const s = this.state;
    const payload = messagePayload(s, message, { gateway: true });
    // Without the MessageContent intent Discord blanks content, embeds, attachments and
    // components, except in messages the bot wrote or that mention it.
    const exempt = message.authorId === s.bot.id || message.pings.users.includes(s.bot.id) || message.pings.repliedUser === s.bot.id;
    const withoutContent = exempt ? undefined : { ...payload, content: '', embeds: [], attachments: [], components: [] };
    this.gateway.dispatch(event, payload, { intent: GatewayIntentBits.GuildMessages, withoutContent });
  }

  private pinsChanged(channel: FakeChannel): void {
    if (!this.botSees(channel.id)) return;
    this.gateway.dispatch(
      'CHANNEL_PINS_UPDATE',
      {
        guild_id: channel.guildId,
        channel_id: channel.id,
        last_pin_timestamp: channel.lastPinAt === null ? null : new Date(channel.lastPinAt).toISOString(),
      },
      { intent: GatewayIntentBits.Guilds },
    );
  }
}

export function guessContentType(filename: string): string | null {
  const ext = filename.toLowerCase().split('.').pop() ?? '';
  const types: Record<string, string> = {
    md: 'text/markdown; charset=utf-8',
    txt: 'text/plain; charset=utf-8',
    json: 'application/json',
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    gif: 'image/gif',
    pdf: 'application/pdf',
  };
  return types[ext] ?? null;
}
