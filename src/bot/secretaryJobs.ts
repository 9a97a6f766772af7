import { dropTaken } from '../memory/jsonlQueue';
import { AnyThreadChannel, ChannelType, Client } from 'discord.js';
import { botThereSince } from './firstSeen';
import { listRetryable } from '../condense/retryPolicy';
import { readLedger, skipIfMalformed } from '../condense/ledgerFile';
import { releaseLeases } from '../condense/leases';
import { CondenseResult } from '../condense/secretary';
import { auditChannel, formatAudit, listChannelRefs } from '../condense/audit';
import type { ChannelStore } from '../memory/store';
import { ChannelRef, refLabel } from '../memory/paths';
import { findMissingCondensations, queueFile, takeQueuedThreads } from './auditThreads';
import { ownsGuild, ownsRef, shardsOf } from './ownership';
import type { Logger } from '../log/logger';
import type { ConfigFile } from '../config/schema';

/** What the scheduled jobs need from the Secretary on Discord. */
export interface SecretaryJobHost {
  client: Client;
  store: ChannelStore;
  clock: () => Date;
  log: Logger;
  config: ConfigFile['discord'];
  /** `actions.staleAfterDays`: the audit flags open actions older than this. */
  staleActionDays: number;
  /** The bot is stopping: jobs stop between threads. */
  closing(): boolean;
  firstRunNoted(ref: ChannelRef): Promise<void>;
  autoCondense(thread: AnyThreadChannel, archivedAt: Date | undefined): Promise<CondenseResult | null>;
  condenseThread(thread: AnyThreadChannel, trigger: 'explicit' | 'auto'): Promise<CondenseResult>;
}

/** A sweep condenses at most this many threads per run, so a backlog never floods a server. */
export const SWEEP_MAX_PER_RUN = 3;
/** How far back a sweep looks at archived threads, per channel. */
const SWEEP_LOOKBACK = 25;

/**
 * The Secretary's scheduled work on Discord: the sweep of recently archived threads (discord.js only
 * reports updates for cached threads), resuming interrupted condensations, the threads the audit
 * queued, and the daily audit. Each works only on this shard's servers.
 */
export class SecretaryJobs {
  constructor(private readonly h: SecretaryJobHost) {}

  /** Threads archived recently, in channels where the bot works; at most a few per run. */
  async sweep(): Promise<number> {
    let done = 0;
    const shards = shardsOf(this.h.client);
    for (const guild of this.h.client.guilds.cache.values()) {
      if (!ownsGuild(guild.id, shards.ids, shards.count)) continue;
      for (const ch of guild.channels.cache.values()) {
        if (done >= SWEEP_MAX_PER_RUN || this.h.closing()) return done;
        if (ch.type !== ChannelType.GuildText && ch.type !== ChannelType.GuildForum) continue;
        const ref: ChannelRef = { kind: 'discord', guildId: guild.id, channelId: ch.id };
        await this.h.firstRunNoted(ref);
        const ledger = await skipIfMalformed(() => readLedger(this.h.store, ref), null);
        const since = ledger && (await botThereSince(this.h.store, guild.id, ledger.firstRunAt));
        if (!since) continue;
        // Private archived threads need Manage Threads to list; without it they are skipped.
        const lists = await Promise.all(
          ['public', 'private'].map((type) =>
            // Silent on purpose: gone, or not visible to the bot: treated as absent.
            ch.threads.fetchArchived({ type: type as 'public' | 'private', limit: SWEEP_LOOKBACK }).catch(() => null),
          ),
        );
        for (const thread of lists.flatMap((l) => [...(l?.threads.values() ?? [])])) {
          if (done >= SWEEP_MAX_PER_RUN || this.h.closing()) return done;
          const when = thread.archivedAt ?? undefined;
          if (when && when.getTime() < since.getTime()) continue;
          const r = await this.h.autoCondense(thread, when);
          if (r && r.status === 'done') done++;
        }
      }
    }
    return done;
  }

  /**
   * Condensations a crash interrupted, or that failed and may be retried: re-gather their thread
   * and run them again. The ledger finds the earlier post by its marker, so nothing posts twice.
   * Leases are released only at start (`atStart`): then no condensation of this process is running,
   * so a 'running' entry was left by a crash. On the periodic sweep a lease may belong to a
   * condensation this process is running right now; it is left to run out on its own.
   */
  async resumeInterrupted(opts: { atStart?: boolean } = {}): Promise<number> {
    const store = this.h.store;
    let n = 0;
    for (const ref of await this.ownedRefs()) {
      // Shutting down: what is left is picked up on the next start.
      if (this.h.closing()) return n;
      if (ref.kind !== 'discord') continue;
      if (opts.atStart && (await skipIfMalformed(() => releaseLeases(store, ref), null)) === null) continue;
      n += await this.condenseQueued(ref);
      for (const f of await skipIfMalformed(() => listRetryable(store, ref, this.h.clock()), [])) {
        const threadId = f.conversation.threadId;
        if (this.h.closing()) return n;
        if (!threadId) continue;
        // Silent on purpose: gone, or not visible to the bot: treated as absent.
        const thread = await this.h.client.channels.fetch(threadId).catch(() => null);
        if (!thread?.isThread()) continue;
        const r = await this.h.condenseThread(thread, f.trigger);
        this.h.log.info({ thread: threadId, status: r.status }, 'resumed an interrupted or failed condensation');
        n++;
      }
    }
    return n;
  }

  /** Threads `minutes audit --fix` queued: condensed now (explicitly: a person asked via the audit). */
  private async condenseQueued(ref: ChannelRef): Promise<number> {
    const store = this.h.store;
    const file = queueFile(store, ref);
    const { ids, taken } = await takeQueuedThreads(store, ref);
    let n = 0;
    for (const id of ids) {
      if (this.h.closing()) {
        // Shutting down: put the rest back for the next start.
        await store.appendJsonl(file, { threadId: id, at: this.h.clock().toISOString() });
        continue;
      }
      // Silent on purpose: gone, or not visible to the bot: treated as absent.
      const thread = await this.h.client.channels.fetch(id).catch(() => null);
      if (!thread?.isThread()) continue;
      try {
        const r = await this.h.condenseThread(thread, 'auto');
        this.h.log.info({ thread: id, status: r.status }, 'condensed a thread queued by the audit');
        n++;
      } catch (err) {
        // Back in the queue for the next sweep rather than dropped.
        this.h.log.warn({ thread: id, err }, 'a queued condensation failed; it stays queued');
        await store.appendJsonl(file, { threadId: id, at: this.h.clock().toISOString() });
      }
    }
    await dropTaken(taken);
    return n;
  }

  /** The scheduled audit: files only (the sweep covers threads missing a condensation). */
  async audit(): Promise<void> {
    for (const ref of await this.ownedRefs()) {
      const a = await auditChannel({ store: this.h.store, ref, fix: true, now: this.h.clock(), staleActionDays: this.h.staleActionDays });
      for (const line of formatAudit(a)) this.h.log.warn({ channel: refLabel(ref) }, `audit: ${line}`);
    }
    if (!this.h.client.isReady()) return;
    for (const m of await findMissingCondensations(this.h.client, this.h.store, this.h.config)) {
      this.h.log.warn({ thread: m.threadId }, `audit: thread "${m.name}" was resolved with enough discussion but has no condensation; queued`);
      const ref: ChannelRef = { kind: 'discord', guildId: m.guildId, channelId: m.channelId };
      await this.h.store.appendJsonl(queueFile(this.h.store, ref), { threadId: m.threadId, at: this.h.clock().toISOString() });
    }
    await this.resumeInterrupted();
  }

  /**
   * The channel folders this process may work on. All shards share one data root, and releasing
   * another shard's leases would let two processes condense the same thread at once (double posts,
   * torn ledgers); its audit queue is its own to consume too.
   */
  private async ownedRefs(): Promise<ChannelRef[]> {
    const shards = shardsOf(this.h.client);
    return (await listChannelRefs(this.h.store.root)).filter((ref) => ownsRef(ref, shards));
  }
}
