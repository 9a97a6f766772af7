import { AnyThreadChannel, ChannelType, Client, SendableChannels, TextBasedChannel } from 'discord.js';
import { autoGate } from '../../condense/saga/gate';
import { botThereSince } from './firstSeen';
import { lastCondensedMessageId } from '../../condense/saga/ledgerQueries';
import { readLedger } from '../../condense/saga/ledgerFile';
import type { Secretary, CondenseResult } from '../../condense/saga/secretary';
import { humanMessages, messagesSince } from '../../condense/condensation/transcript';
import type { CondensationDraft, CondenseTarget, TranscriptMessage } from '../../condense/condensation/types';
import type { ConfigFile } from '../../config/schema';
import type { Logger } from '../../log/logger';
import type { ChannelStore } from '../../memory/store';
import { ChannelRef } from '../../memory/paths';
import { KeyedQueue } from '../../shared/queue';
import { discordPoster, gatherAll } from './gather';
import { refOfChannel } from '../intake/refs';
import { placeAllowed } from '../intake/gate';

export type Trigger = 'explicit' | 'auto';

/**
 * The condensation pipeline (src/condense, transport-free) run on Discord: gathers a thread or a
 * channel's discussion, decides where the post goes, and runs one condensation at a time per
 * channel.
 */
export class DiscordCondenser {
  /**
   * One condensation at a time per channel: each must see the decisions the previous one wrote
   * (to name what it supersedes), and the pins are shared.
   */
  private readonly perChannel = new KeyedQueue();

  constructor(
    private readonly o: {
      client: Client;
      /** The transport-free pipeline this runs on Discord. */
      secretary: Secretary;
      store: ChannelStore;
      logger: Logger;
      /** The allowlists: automatic triggers work only where the bot may. */
      discord: ConfigFile['discord'];
      /** Waits for the first-run record this process started for the conversation, if any. */
      firstRunNoted(ref: ChannelRef): Promise<void>;
    },
  ) {}

  private get log() {
    return this.o.logger;
  }

  /** Every condensation queued so far has finished (shutdown). */
  idle(): Promise<void> {
    return this.perChannel.idle();
  }

  /** A thread archived, locked or tagged resolved: condensed when the automatic gate lets it. */
  async autoCondense(thread: AnyThreadChannel, archivedAt: Date | undefined): Promise<CondenseResult | null> {
    const config = this.o.discord;
    // The allowlists decide where the Secretary works, automatic triggers included.
    if (!placeAllowed(thread.guildId, thread.parentId ?? thread.id, thread.id, config)) return null;
    const ref = this.refOf(thread);
    await this.o.firstRunNoted(ref);
    const ledger = await readLedger(this.o.store, ref);
    const messages = await gatherAll(thread);
    const since = messagesSince(humanMessages(messages), lastCondensedMessageId(ledger, thread.id));
    const there = ref.kind === 'discord' ? await botThereSince(this.o.store, ref.guildId, ledger.firstRunAt) : undefined;
    const verdict = autoGate({ humanSinceLast: since, archivedAt, botFirstRanAt: there });
    if (!verdict.ok) {
      this.log.debug({ thread: thread.id, reason: verdict.reason }, 'automatic condensation skipped');
      return null;
    }
    const result = await this.condenseThread(thread, 'auto', undefined, messages);
    if (result.status === 'failed') this.log.warn({ thread: thread.id, err: result.error }, 'automatic condensation failed; recorded for a retry');
    return result;
  }

  async condenseThread(thread: AnyThreadChannel, trigger: Trigger, topic?: string, gathered?: TranscriptMessage[]): Promise<CondenseResult> {
    const ref = this.refOf(thread);
    const messages = gathered ?? (await gatherAll(thread));
    const parent = thread.parent;
    // A private thread's and a forum post's condensation stays inside it; otherwise it goes to the
    // parent (a forum or media channel takes no plain messages, so those count as inside too).
    const postIn = thread.type !== ChannelType.PrivateThread && parent?.isSendable() ? parent : thread;
    const inside = postIn === thread;
    if (thread.archived && inside)
      await thread
        .setArchived(false, 'posting its condensation')
        .catch((err) => this.log.warn({ err, thread: thread.id }, 'could not unarchive the thread to post its condensation'));
    const target: CondenseTarget = {
      ref,
      guildId: thread.guildId,
      channelName: parent?.name ?? thread.name,
      threadName: thread.name,
      threadId: thread.id,
      link: (id) => `https://discord.com/channels/${thread.guildId}/${thread.id}/${id}`,
      trigger,
      topicHint: topic,
    };
    return this.perChannel.run(this.channelKey(ref), () =>
      this.o.secretary.condense({ target, messages, poster: discordPoster(postIn, this.o.client.user!.id, this.log) }),
    );
  }

  /** A discussion in a channel (not a thread): the condensation is posted in that channel. */
  async condenseMessages(ch: SendableChannels, ref: ChannelRef, messages: TranscriptMessage[], trigger: Trigger, topic?: string): Promise<CondenseResult> {
    const guildId = ref.kind === 'discord' ? ref.guildId : '';
    const target: CondenseTarget = {
      ref,
      guildId,
      channelName: 'name' in ch && typeof ch.name === 'string' ? ch.name : ch.id,
      link: (id) => `https://discord.com/channels/${guildId}/${ch.id}/${id}`,
      trigger,
      topicHint: topic,
    };
    return this.perChannel.run(this.channelKey(ref), () =>
      this.o.secretary.condense({ target, messages, poster: discordPoster(ch, this.o.client.user!.id, this.log) }),
    );
  }

  /**
   * A member's draft (Supersede's form, Record as decision) filed through a condensation's path, the
   * model not asked: posted and pinned where a condensation of `where` would be, filed, folded into
   * CONTEXT.md (what it supersedes struck through). `messages`: what it rests on, for its key and
   * provenance (the recorded message, or the form's submission).
   */
  async fileMemberDraft(where: SendableChannels, messages: TranscriptMessage[], draft: CondensationDraft): Promise<CondenseResult> {
    const ref = this.refOf(where);
    const thread = where.isThread() ? where : undefined;
    const parent = thread?.parent;
    const postIn = thread && thread.type !== ChannelType.PrivateThread && parent?.isSendable() ? parent : where;
    const guildId = ref.kind === 'discord' ? ref.guildId : '';
    const target: CondenseTarget = {
      ref,
      guildId,
      channelName: parent?.name ?? ('name' in where && typeof where.name === 'string' ? where.name : where.id),
      threadName: thread?.name,
      threadId: thread?.id,
      link: (id) => `https://discord.com/channels/${guildId}/${where.id}/${id}`,
      trigger: 'explicit',
    };
    return this.perChannel.run(this.channelKey(ref), () =>
      this.o.secretary.condense({ target, messages, draft, poster: discordPoster(postIn, this.o.client.user!.id, this.log) }),
    );
  }

  refOf(ch: TextBasedChannel): ChannelRef {
    return refOfChannel((ch as { guildId?: string }).guildId ?? null, ch)!;
  }

  private channelKey(ref: ChannelRef): string {
    return this.o.store.paths(this.o.store.parentRef(ref)).channelDir;
  }
}

/** The one-line answer to the person who asked for a condensation. */
export function describeCondensation(r: CondenseResult): string {
  switch (r.status) {
    case 'done':
      return [r.post?.url ? `Condensed: ${r.post.url}` : `Condensed and filed as ${r.file}.`, ...r.notices].join('\n');
    case 'already':
      return 'This discussion is already condensed; nothing new since.';
    case 'in-progress':
      return 'A condensation of this discussion is already running.';
    case 'empty':
      return 'There is nothing to condense yet.';
    case 'failed':
      return r.userMessage;
  }
}
