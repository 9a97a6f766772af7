import { dropTaken } from '../../memory/jsonlQueue';
import { AnyThreadChannel, ChannelType, Client, DiscordAPIError, FetchedThreads, GuildBasedChannel } from 'discord.js';
import { botThereSince } from './firstSeen';
import { listRetryable } from '../../condense/saga/retryPolicy';
import { readLedger, skipIfMalformed } from '../../condense/saga/ledgerFile';
import { releaseLeases } from '../../condense/saga/leases';
import { CondenseResult } from '../../condense/saga/secretary';
import { auditChannel, formatAudit, listChannelRefs } from '../../condense/audit/audit';
import type { ChannelStore } from '../../memory/store';
import { ChannelRef, refLabel } from '../../memory/paths';
import { findMissingCondensations, queueFile, takeQueuedThreads } from './auditThreads';
import { ownsGuild, ownsRef, shardsOf } from '../shards/ownership';
import type { Logger } from '../../log/logger';
import type { ConfigFile } from '../../config/schema';
import { OldPostButtons } from './oldPostButtons';

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
  /** Resolves when no answer or send has been in flight for a moment, or after `maxWaitMs`. */
  quiet(maxWaitMs: number): Promise<void>;
  /**
   * When the client's current gateway session began: every archive of a cached thread since then
   * raised threadUpdate. Undefined while unknown: then every channel is read.
   */
  sessionSince(): Date | undefined;
  autoCondense(thread: AnyThreadChannel, archivedAt: Date | undefined): Promise<CondenseResult | null>;
  condenseThread(thread: AnyThreadChannel, trigger: 'explicit' | 'auto'): Promise<CondenseResult>;
}

/** A sweep condenses at most this many threads per run, so a backlog never floods a server. */
export const SWEEP_MAX_PER_RUN = 3;
/** How far back a sweep looks at archived threads, per channel. */
const SWEEP_LOOKBACK = 25;
/**
 * A sweep reads at most one channel's archives (two requests) per this interval: 4 of discord.js's
 * 50 REST requests a second at most, so a sweep of many channels never crowds out replies.
 */
export const SWEEP_FETCH_GAP_MS = 500;
/** A sweep waits for a quiet bot this long at most in all, then goes on at its paced rate anyway. */
const SWEEP_MAX_QUIET_WAIT_MS = 5 * 60_000;

/**
 * The Secretary's scheduled work on Discord: the sweep of recently archived threads (discord.js only
 * reports updates for cached threads), resuming interrupted condensations, the threads the audit
 * queued, and the daily audit. Each works only on this shard's servers.
 */
export class SecretaryJobs {
  /** Per text or forum channel, when this process last read its archived threads in full. */
  private readonly readThrough = new Map<string, Date>();
  /** Channels with an archive discord.js did not report (an uncached thread, a failed handler). */
  private readonly unreported = new Set<string>();
  private lastFetch = -Infinity;
  /** The sweep running now: the start-up and periodic sweeps never run side by side (twice the reads). */
  private sweeping: Promise<number> | undefined;
  private readonly oldButtons: OldPostButtons;

  constructor(private readonly h: SecretaryJobHost) {
    this.oldButtons = new OldPostButtons({ ...h, refs: () => this.ownedRefs() });
  }

  /** Condensation posts made before posts carried their buttons get them, a few a minute (oldPostButtons.ts). */
  addOldButtons(): Promise<number> {
    return this.oldButtons.run();
  }

  /** A thread in this channel was archived without a threadUpdate the triggers handled: the next sweep reads it. */
  markUnreported(channelId: string): void {
    this.unreported.add(channelId);
  }

  /**
   * Threads archived recently, in channels where the bot works; at most a few per run. A channel
   * is read only when an archive there may have gone unreported: the bot was down (the channel's
   * record predates this gateway session and this process has not read it since), the session was
   * re-identified (events in the gap are lost; a resume replays them), or discord.js added an
   * uncached thread without an event, or the handler failed (`markUnreported`). Every other thread
   * archived since was cached (active threads arrive with the guild, new ones with THREAD_CREATE),
   * so the triggers already saw it; anything archived before the channel's record is never
   * condensed automatically anyway. Reads wait for a quiet bot and are paced (SWEEP_FETCH_GAP_MS).
   */
  sweep(): Promise<number> {
    this.sweeping ??= this.sweepOnce().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepOnce(): Promise<number> {
    let done = 0;
    const shards = shardsOf(this.h.client);
    const quietUntil = Date.now() + SWEEP_MAX_QUIET_WAIT_MS;
    for (const guild of this.h.client.guilds.cache.values()) {
      if (!ownsGuild(guild.id, shards.ids, shards.count)) continue;
      for (const ch of guild.channels.cache.values()) {
        if (done >= SWEEP_MAX_PER_RUN || this.h.closing()) return done;
        if (ch.type !== ChannelType.GuildText && ch.type !== ChannelType.GuildForum) continue;
        const session = this.h.sessionSince();
        const unreported = this.unreported.has(ch.id);
        const read = this.readThrough.get(ch.id);
        if (!unreported && session && read && read >= session) continue;
        const ref: ChannelRef = { kind: 'discord', guildId: guild.id, channelId: ch.id };
        await this.h.firstRunNoted(ref);
        const ledger = await skipIfMalformed(() => readLedger(this.h.store, ref), null);
        const since = ledger && (await botThereSince(this.h.store, guild.id, ledger.firstRunAt));
        if (!since) continue;
        if (!unreported && session && since >= session) continue;
        await this.pace(quietUntil);
        if (this.h.closing()) return done;
        const readAt = this.h.clock();
        this.unreported.delete(ch.id);
        const lists = await archivedThreads(ch);
        for (const thread of lists.flatMap((l) => [...(l?.threads.values() ?? [])])) {
          if (done >= SWEEP_MAX_PER_RUN || this.h.closing()) {
            // Not read through: the next sweep reads this channel again.
            if (unreported) this.unreported.add(ch.id);
            return done;
          }
          const when = thread.archivedAt ?? undefined;
          if (when && when.getTime() < since.getTime()) continue;
          const r = await this.h.autoCondense(thread, when);
          if (r && r.status === 'done') done++;
        }
        if (lists.every((l) => l !== undefined)) this.readThrough.set(ch.id, readAt);
        else if (unreported) this.unreported.add(ch.id);
      }
    }
    return done;
  }

  /** Waits for a quiet bot (until `quietUntil` at most, for the whole sweep) and for the gap since the last read. */
  private async pace(quietUntil: number): Promise<void> {
    await this.h.quiet(Math.max(0, quietUntil - Date.now()));
    const wait = this.lastFetch + SWEEP_FETCH_GAP_MS - performance.now();
    if (wait > 0) await new Promise<void>((resolve) => setTimeout(resolve, wait).unref());
    this.lastFetch = performance.now();
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

/**
 * A channel's public and private archived threads; undefined for a list that could not be read
 * for now (a network or server error), null for one the bot may not see (private archives need
 * Manage Threads) or a channel that is gone: nothing there to read later either.
 */
async function archivedThreads(
  ch: GuildBasedChannel & { threads: { fetchArchived(o: { type: 'public' | 'private'; limit: number }): Promise<FetchedThreads> } },
) {
  return Promise.all(
    (['public', 'private'] as const).map((type) =>
      ch.threads
        .fetchArchived({ type, limit: SWEEP_LOOKBACK })
        .catch((err: unknown) => (err instanceof DiscordAPIError && err.status >= 400 && err.status < 500 ? null : undefined)),
    ),
  );
}
