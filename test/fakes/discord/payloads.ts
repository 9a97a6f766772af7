/**
 * State records → Discord API JSON (v10 shapes).
 *
 * discord.js silently drops or half-builds structures when fields are missing (notes §2.4), so
 * these builders emit the realistic field set, not the minimum: members with roles and
 * joined_at, roles with permissions, channels with permission_overwrites, messages with
 * mentions/attachments/embeds/timestamps/type/flags/message_reference.
 */
import { ChannelType } from 'discord.js';
import { type FakeAttachment, type FakeChannel, type FakeMember, type FakeMessage, type FakeRole, type FakeState, type FakeUser } from './state';
import { shardOf } from './snowflake';

type Json = Record<string, unknown>;

const iso = (ms: number) => new Date(ms).toISOString();

export function userPayload(u: FakeUser): Json {
  return {
    id: u.id,
    username: u.username,
    global_name: u.globalName,
    discriminator: '0',
    avatar: null,
    bot: u.bot,
    system: false,
    public_flags: 0,
    flags: 0,
    banner: null,
    accent_color: null,
    avatar_decoration_data: null,
  };
}

/** Member object; gateway MESSAGE_CREATE puts it beside `author` and omits `user`. */
export function memberPayload(state: FakeState, m: FakeMember, opts: { withUser: boolean }): Json {
  return {
    ...(opts.withUser ? { user: userPayload(state.user(m.userId)) } : {}),
    nick: m.nick,
    avatar: null,
    banner: null,
    roles: [...m.roleIds],
    joined_at: iso(m.joinedAt),
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
  };
}

export function rolePayload(r: FakeRole): Json {
  return {
    id: r.id,
    name: r.name,
    color: r.color,
    colors: { primary_color: r.color, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position: r.position,
    permissions: r.permissions.toString(),
    managed: r.managedByBotId !== null,
    mentionable: r.mentionable,
    flags: 0,
    ...(r.managedByBotId ? { tags: { bot_id: r.managedByBotId } } : {}),
  };
}

export function channelPayload(state: FakeState, c: FakeChannel): Json {
  const base: Json = {
    id: c.id,
    type: c.type,
    guild_id: c.guildId,
    name: c.name,
    parent_id: c.parentId,
    last_message_id: c.lastMessageId,
    last_pin_timestamp: c.lastPinAt === null ? null : iso(c.lastPinAt),
    rate_limit_per_user: 0,
    flags: 0,
    nsfw: false,
  };
  if (c.thread) {
    const t = c.thread;
    return {
      ...base,
      owner_id: t.ownerId,
      message_count: t.messageCount,
      total_message_sent: t.messageCount,
      member_count: Math.min(t.memberIds.size, 50),
      applied_tags: [...t.appliedTags],
      thread_metadata: {
        archived: t.archived,
        auto_archive_duration: t.autoArchiveDuration,
        archive_timestamp: iso(t.archiveTimestamp),
        locked: t.locked,
        create_timestamp: iso(t.createdAt),
        ...(c.type === ChannelType.PrivateThread ? { invitable: t.invitable } : {}),
      },
      // Present when the bot has joined: lets discord.js fill `thread.joined`.
      ...(t.memberIds.has(state.bot.id) ? { member: threadMemberPayload(c, state.bot.id, t.createdAt) } : {}),
    };
  }
  const channel: Json = {
    ...base,
    position: c.position,
    topic: c.topic,
    permission_overwrites: c.overwrites.map((o) => ({
      id: o.id,
      type: o.type,
      allow: o.allow.toString(),
      deny: o.deny.toString(),
    })),
    default_auto_archive_duration: 1440,
  };
  if (c.type === ChannelType.GuildForum) {
    return {
      ...channel,
      available_tags: (c.availableTags ?? []).map((t) => ({
        id: t.id,
        name: t.name,
        moderated: t.moderated,
        emoji_id: null,
        emoji_name: t.emojiName,
      })),
      default_reaction_emoji: null,
      default_sort_order: null,
      default_forum_layout: 0,
      default_thread_rate_limit_per_user: 0,
    };
  }
  return channel;
}

export function threadMemberPayload(thread: FakeChannel, userId: string, joinedAt: number): Json {
  return { id: thread.id, user_id: userId, join_timestamp: iso(joinedAt), flags: 0 };
}

export function attachmentPayload(a: FakeAttachment): Json {
  return {
    id: a.id,
    filename: a.filename,
    size: a.size,
    url: a.url,
    proxy_url: a.url,
    content_type: a.contentType ?? undefined,
    description: a.description ?? undefined,
  };
}

/**
 * A message as REST returns it, or as the gateway dispatches it (`gateway: true` adds guild_id and
 * the author's member, which discord.js uses to build `message.member`).
 */
export function messagePayload(state: FakeState, m: FakeMessage, opts: { gateway: boolean; depth?: number }): Json {
  const author = state.user(m.authorId);
  const mentionUser = (id: string) => {
    const member = state.member(m.guildId, id);
    return {
      ...userPayload(state.user(id)),
      ...(opts.gateway && member ? { member: memberPayload(state, member, { withUser: false }) } : {}),
    };
  };
  const mentionIds = [...m.pings.users];
  if (m.pings.repliedUser && !mentionIds.includes(m.pings.repliedUser)) mentionIds.push(m.pings.repliedUser);
  const referenced = m.reference?.messageId ? state.messages.get(m.reference.messageId) : undefined;
  const authorMember = state.member(m.guildId, m.authorId);
  const thread = m.threadId ? state.channels.get(m.threadId) : undefined;
  return {
    id: m.id,
    channel_id: m.channelId,
    author: userPayload(author),
    content: m.content,
    timestamp: iso(m.createdAt),
    edited_timestamp: m.editedAt === null ? null : iso(m.editedAt),
    tts: m.tts,
    mention_everyone: m.pings.everyone,
    mentions: mentionIds.map(mentionUser),
    mention_roles: [...m.pings.roles],
    mention_channels: [],
    attachments: m.attachments.map(attachmentPayload),
    embeds: m.embeds,
    components: m.components,
    reactions: [...m.reactions.values()].map((r) => ({
      emoji: r.emoji,
      count: r.userIds.size,
      count_details: { burst: 0, normal: r.userIds.size },
      me: r.userIds.has(state.bot.id),
      me_burst: false,
      burst_colors: [],
    })),
    pinned: m.pinned,
    type: m.type,
    flags: m.flags,
    ...(m.nonce !== null ? { nonce: m.nonce } : {}),
    ...(m.webhookId ? { webhook_id: m.webhookId, application_id: state.applicationId } : {}),
    ...(m.reference
      ? {
          message_reference: {
            type: 0,
            message_id: m.reference.messageId ?? undefined,
            channel_id: m.reference.channelId,
            guild_id: m.reference.guildId ?? undefined,
          },
        }
      : {}),
    // Replies carry the replied-to message (one level deep, like Discord); null when it was deleted.
    ...(m.type === 19 && (opts.depth ?? 0) === 0
      ? { referenced_message: referenced ? messagePayload(state, referenced, { gateway: false, depth: 1 }) : null }
      : {}),
    ...(m.interaction
      ? {
          interaction_metadata: {
            id: m.interaction.id,
            type: m.interaction.type ?? 2,
            name: m.interaction.name,
            user: userPayload(state.user(m.interaction.userId)),
            authorizing_integration_owners: { '0': m.guildId },
          },
          interaction: {
            id: m.interaction.id,
            type: m.interaction.type ?? 2,
            name: m.interaction.name,
            user: userPayload(state.user(m.interaction.userId)),
          },
        }
      : {}),
    ...(thread ? { thread: channelPayload(state, thread) } : {}),
    ...(opts.gateway ? { guild_id: m.guildId } : {}),
    ...(opts.gateway && authorMember && !m.webhookId ? { member: memberPayload(state, authorMember, { withUser: false }) } : {}),
  };
}

/** GUILD_CREATE: the guild with its roles, members, channels and the active threads the bot sees. */
export function guildCreatePayload(state: FakeState, guildId: string): Json {
  const g = state.guild(guildId);
  const botMember = state.member(guildId, state.bot.id);
  const members = state.membersOf(guildId);
  const threads = state.channelsOf(guildId, { threads: true }).filter((t) => !t.thread?.archived && state.permissionsIn(t.id, state.bot.id) !== 0n);
  return {
    ...guildPayload(state, guildId),
    joined_at: iso(botMember?.joinedAt ?? g.createdAt),
    large: false,
    unavailable: false,
    member_count: members.length,
    voice_states: [],
    members: members.map((m) => memberPayload(state, m, { withUser: true })),
    channels: state.channelsOf(guildId, { threads: false }).map((c) => channelPayload(state, c)),
    threads: threads.map((t) => channelPayload(state, t)),
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

export function guildPayload(state: FakeState, guildId: string): Json {
  const g = state.guild(guildId);
  return {
    id: g.id,
    name: g.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    banner: null,
    description: null,
    owner_id: g.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    roles: state.rolesOf(guildId).map(rolePayload),
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    public_updates_channel_id: null,
    safety_alerts_channel_id: null,
    vanity_url_code: null,
    premium_tier: 0,
    premium_progress_bar_enabled: false,
    preferred_locale: 'en-US',
    nsfw_level: 0,
    max_members: 500000,
  };
}

/** READY and the GUILD_CREATEs for a new gateway session, built from one guild list. */
export function identifyPayloads(
  state: FakeState,
  opts: { sessionId: string; gatewayUrl: string; applicationFlags: number; shard?: [number, number] },
): { ready: Json; guildCreates: Json[] } {
  const [shardId, shardCount] = opts.shard ?? [0, 1];
  const guilds = [...state.guilds.values()].filter((g) => state.member(g.id, state.bot.id) && shardOf(g.id, shardCount) === shardId);
  return {
    ready: {
      v: 10,
      user: { ...userPayload(state.bot), verified: true, mfa_enabled: false },
      // Must list exactly the guilds sent as GUILD_CREATE, or clientReady waits 15 s (pitfall 3).
      guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
      session_id: opts.sessionId,
      session_type: 'normal',
      // Reconnects go to READY's resume_gateway_url, so it must point at the fake (pitfall 5).
      resume_gateway_url: opts.gatewayUrl,
      shard: [shardId, shardCount],
      application: { id: state.applicationId, flags: opts.applicationFlags },
      user_settings: {},
      private_channels: [],
      presences: [],
      relationships: [],
      guild_join_requests: [],
      geo_ordered_rtc_regions: [],
      auth: {},
      _trace: ['fake-discord'],
    },
    guildCreates: guilds.map((g) => guildCreatePayload(state, g.id)),
  };
}
