import {
  ChannelType,
  ChatInputCommandInteraction,
  Client,
  Events,
  ForumChannel,
  GuildMember,
  Message,
  MessageReaction,
  PartialMessageReaction,
  PartialUser,
  PermissionFlagsBits,
  User,
} from 'discord.js';
import type { ConfigFile } from '../../config/schema';
import type { SideTaskDeps } from '../../llm/sideTask';
import { threadTitle } from '../../condense/titles/threadTitle';
import type { ChannelRef } from '../../memory/paths';
import { NO_PINGS } from '../discord/client';
import { placeAllowed } from '../intake/gate';
import { InFlight } from '../intake/inFlight';
import { refOfChannel } from '../intake/refs';

/**
 * The Secretary opens threads for focused topics: 🧵 on a message, or `/thread [topic]` (from the
 * channel's latest message), starts a public thread from that message with a short model-written
 * title and posts one line saying what it is for; in a forum channel, `/thread` opens a post. The
 * thread then works like any other (its own SESSION.md, the channel's memory) and is condensed into
 * the channel's decision log when resolved.
 */
export const THREAD_EMOJI = '🧵';

/** Without these the bot cannot open a thread or speak in it. */
const NEEDED = [PermissionFlagsBits.CreatePublicThreads, PermissionFlagsBits.SendMessagesInThreads];
const NEEDED_NAMES = 'Create Public Threads and Send Messages in Threads';

type Outcome = { ok: true; threadId: string; title: string } | { ok: false; why: string };

export class ThreadOpener {
  private readonly events: InFlight;

  constructor(
    private readonly o: {
      client: Client;
      /** The allowlists (a thread is opened only where the bot may work). */
      discord: ConfigFile['discord'];
      /** The model call that names a thread, and the log. */
      deps: SideTaskDeps;
    },
  ) {
    this.events = new InFlight((err, event) => o.deps.logger.error({ err, event }, 'thread opener event failed'));
  }

  attach(): void {
    this.o.client.on(Events.MessageReactionAdd, (r, u) => {
      this.events.run('reaction', () => this.onReaction(r, u));
    });
  }

  async stop(): Promise<void> {
    await this.events.close();
  }

  /** `/thread [topic]`: the answer is the one line the person sees (ephemeral when it failed). */
  async command(ix: ChatInputCommandInteraction, topic: string | null): Promise<string> {
    const ch = ix.channel;
    if (!ch || !ix.guildId) return 'I cannot see this channel.';
    if (ch.isThread()) {
      // Commands cannot be typed in a forum channel itself, only inside its posts: there, /thread
      // opens a new post in the forum.
      const forum = ch.parent;
      if (forum?.type === ChannelType.GuildForum) return this.describe(await this.openForumPost(forum, ix.guildId, topic ?? ''));
      return 'This is already a thread: /thread works in a channel.';
    }
    if (!('messages' in ch)) return 'I cannot open a thread in this kind of channel.';
    // Silent on purpose: gone, or not visible to the bot: treated as absent.
    const latest = (await ch.messages.fetch({ limit: 10 }).catch(() => null))?.find((m) => !m.system);
    if (!latest) return 'There is no message here to start a thread from yet.';
    return this.describe(await this.openFromMessage(latest, topic ?? undefined));
  }

  private async onReaction(r: MessageReaction | PartialMessageReaction, u: User | PartialUser): Promise<void> {
    if (r.emoji.name !== THREAD_EMOJI || u.bot || u.id === this.o.client.user?.id) return;
    const reaction = r.partial ? await r.fetch() : r;
    const message = reaction.message.partial ? await reaction.message.fetch() : reaction.message;
    if (!message.guild || message.channel.isDMBased() || message.channel.isThread()) return;
    // Silent on purpose: gone, or not visible to the bot: treated as absent.
    const member: GuildMember | null = await message.guild.members.fetch(u.id).catch(() => null);
    if (!member) return;
    const result = await this.openFromMessage(message);
    // A reaction has no private answer: a refusal is logged, never posted into the channel.
    if (!result.ok) this.o.deps.logger.warn({ channel: message.channelId, why: result.why }, 'could not open a thread for 🧵');
  }

  private async openFromMessage(message: Message, topic?: string): Promise<Outcome> {
    const ch = message.channel;
    const guildId = message.guildId;
    if (!guildId || ch.isDMBased() || ch.isThread()) return { ok: false, why: 'Threads start from a message in a channel.' };
    if (!placeAllowed(guildId, ch.id, null, this.o.discord)) return { ok: false, why: "I do not work in this channel (see the config's allowlists)." };
    const missing = this.missingPermission(ch);
    if (missing) return { ok: false, why: missing };
    if (message.hasThread && message.thread) return { ok: true, threadId: message.thread.id, title: message.thread.name };
    const ref = refOfChannel(guildId, ch)!;
    const { title, purpose } = await this.title(ref, message.content || topic || 'Discussion', topic);
    try {
      const thread = await message.startThread({ name: title, reason: `opened by the Secretary (${THREAD_EMOJI} or /thread)` });
      await thread.send({ content: firstLine(purpose), allowedMentions: NO_PINGS });
      return { ok: true, threadId: thread.id, title };
    } catch (err) {
      this.o.deps.logger.warn({ err, channel: ch.id }, 'could not open a thread');
      return { ok: false, why: `Discord refused to open the thread (${(err as Error).message}).` };
    }
  }

  private async openForumPost(forum: ForumChannel, guildId: string, topic: string): Promise<Outcome> {
    if (!topic.trim()) return { ok: false, why: 'In a forum, /thread needs a topic: /thread topic:<what the post is about>.' };
    if (!placeAllowed(guildId, forum.id, null, this.o.discord)) return { ok: false, why: "I do not work in this channel (see the config's allowlists)." };
    const me = this.o.client.user;
    const perms = me ? forum.permissionsFor(me) : null;
    if (!perms?.has([PermissionFlagsBits.SendMessages, PermissionFlagsBits.SendMessagesInThreads])) {
      return { ok: false, why: 'I need Send Messages and Send Messages in Threads in this forum to open a post.' };
    }
    const ref: ChannelRef = { kind: 'discord', guildId, channelId: forum.id };
    const { title, purpose } = await this.title(ref, topic, topic);
    try {
      const post = await forum.threads.create({ name: title, message: { content: firstLine(purpose), allowedMentions: NO_PINGS } });
      return { ok: true, threadId: post.id, title };
    } catch (err) {
      this.o.deps.logger.warn({ err, channel: forum.id }, 'could not open a forum post');
      return { ok: false, why: `Discord refused to open the post (${(err as Error).message}).` };
    }
  }

  private missingPermission(ch: Message['channel']): string | null {
    const me = this.o.client.user;
    if (!me || ch.isDMBased()) return 'I cannot check my permissions here.';
    const perms = 'permissionsFor' in ch ? ch.permissionsFor(me) : null;
    return perms?.has(NEEDED) ? null : `I need the ${NEEDED_NAMES} permissions in this channel to open a thread.`;
  }

  private title(ref: ChannelRef, message: string, topic?: string): Promise<{ title: string; purpose: string }> {
    return threadTitle(this.o.deps, ref, { message, topic });
  }

  private describe(r: Outcome): string {
    // A channel mention links the thread and pings nobody.
    return r.ok ? `Opened <#${r.threadId}>: ${r.title}` : r.why;
  }
}

function firstLine(purpose: string): string {
  // The bot owns the threads it opens, so ✅ "from the thread's owner" is not offered here.
  return `${THREAD_EMOJI} ${purpose} When it is settled, /resolve files it in the channel's decision log.`;
}
