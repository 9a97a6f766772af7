import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import type { IIdentifyThrottler } from 'discord.js';
import { redactUrl, redisClientOptions } from '../../llm/limiter';
import type { Logger } from '../../log/logger';

/**
 * Discord allows one IDENTIFY per 5 s per concurrency bucket (`shard id % max_concurrency`) for the
 * whole bot, whichever host sends it. A turn here is half a second longer, so the hosts' different
 * network delays cannot squeeze two identifies into Discord's 5 s.
 */
export const IDENTIFY_TURN_MS = 5_500;

/**
 * Reserves the next turn of a bucket and says how long to wait for it. Redis's own clock decides,
 * so the hosts' clocks never have to agree; each caller gets its own turn, in the order they asked
 * (a queue, not a lock to poll), and a turn a shard never used (it stopped, or crashed) just passes.
 */
const RESERVE_TURN = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local free = tonumber(redis.call('GET', KEYS[1]) or '0')
local at = math.max(now, free)
local turn = tonumber(ARGV[1])
redis.call('SET', KEYS[1], at + turn, 'PX', at + turn - now)
return at - now
`;

/**
 * How long a turn is waited for when Redis is slow or gone. A Redis that accepts the connection but
 * never answers (stopped, swapping, a dropped route) held the shard forever without a word: each
 * request now has a deadline, a failed one is retried after a growing pause (never longer than
 * `retryMaxMs`, so a Redis that is back is used soon), and while it lasts one line every
 * `warnEveryMs` names Redis and the shards waiting on it.
 */
export interface IdentifyTiming {
  commandTimeoutMs: number;
  retryMinMs: number;
  retryMaxMs: number;
  warnEveryMs: number;
}

export const IDENTIFY_TIMING: IdentifyTiming = { commandTimeoutMs: 3_000, retryMinMs: 250, retryMaxMs: 5_000, warnEveryMs: 30_000 };

/** What discord.js hands `ws.buildIdentifyThrottler`: only the gateway information is used. */
export interface GatewayInfoSource {
  fetchGatewayInformation(): Promise<{ session_start_limit: { max_concurrency: number } }>;
}

/**
 * The identify turns of every process of one bot, taken through Redis: discord.js asks it before
 * each IDENTIFY through the `buildIdentifyThrottler` seam of its gateway options, in place of its
 * own per-process throttle. One Redis connection, opened at the first identify.
 */
export class IdentifyQueue {
  private redis: Redis | undefined;
  private lastWarnedAt: number | null = null;
  private readonly prefix: string;
  private readonly timing: IdentifyTiming;
  /** The shards waiting for a turn Redis has not given yet (named in the waiting line). */
  private readonly waiting = new Map<number, string>();

  constructor(private readonly o: { redisUrl: string; token: string; logger: Logger; timing?: Partial<IdentifyTiming> }) {
    // The bot's own key space, without the token in it: bots sharing one Redis do not share turns.
    this.prefix = `minutes-identify:${createHash('sha256').update(o.token).digest('hex').slice(0, 16)}`;
    this.timing = { ...IDENTIFY_TIMING, ...o.timing };
  }

  /** For discord.js's `ws.buildIdentifyThrottler`: honours the bot's `max_concurrency` from /gateway/bot. */
  readonly buildThrottler = async (manager: GatewayInfoSource): Promise<IIdentifyThrottler> => {
    const info = await manager.fetchGatewayInformation();
    const maxConcurrency = Math.max(1, info.session_start_limit.max_concurrency || 1);
    return { waitForIdentify: (shardId, signal) => this.waitForTurn(shardId, maxConcurrency, signal) };
  };

  /** Resolves when shard `shardId` may identify; rejects only when `signal` aborts. */
  async waitForTurn(shardId: number, maxConcurrency: number, signal: AbortSignal): Promise<void> {
    const bucket = shardId % maxConcurrency;
    const key = `${this.prefix}:${maxConcurrency}:${bucket}`;
    let pause = this.timing.retryMinMs;
    // After a request that got no answer, a PING asks first: a stalled Redis runs every request it was
    // sent once it wakes, and each unanswered reservation would be a turn nobody uses (5.5 s each).
    let probe = false;
    this.waiting.set(shardId, `shard ${shardId} (bucket ${bucket})`);
    try {
      for (;;) {
        signal.throwIfAborted();
        let waitMs: number;
        try {
          if (probe) await this.connection().ping();
          probe = false;
          waitMs = Number(await this.connection().eval(RESERVE_TURN, 1, key, IDENTIFY_TURN_MS));
        } catch (err) {
          probe = true;
          // Never identify without a turn: another host may be identifying in this bucket right now.
          this.reportUnreachable(err);
          // A connection that stopped answering may never answer again (a dropped route): the next try opens a new one.
          this.dropConnection();
          await sleep(pause, undefined, { signal });
          pause = Math.min(pause * 2, this.timing.retryMaxMs);
          continue;
        }
        if (this.lastWarnedAt !== null) this.o.logger.info({ redis: redactUrl(this.o.redisUrl), shard: shardId }, 'Redis answers again: identify turns go on');
        this.lastWarnedAt = null;
        if (waitMs > 0) this.o.logger.info({ shard: shardId, bucket, waitMs }, "waiting for this shard's turn to identify (shared through Redis)");
        await sleep(waitMs, undefined, { signal });
        return;
      }
    } finally {
      this.waiting.delete(shardId);
    }
  }

  async close(): Promise<void> {
    const redis = this.redis;
    this.redis = undefined;
    if (!redis) return;
    // QUIT is polite but waits on an unreachable Redis; then just drop the socket.
    const quit = await Promise.race([redis.quit().then(() => true), sleep(2_000, false, { ref: false })]).catch(() => false);
    if (!quit) redis.disconnect();
  }

  private connection(): Redis {
    if (!this.redis) {
      // A failed command surfaces at once (waitForTurn retries it and says why); closing after a
      // failed connection leaves ioredis a timer of disconnectTimeout, kept short so an exit is not held up.
      // commandTimeout: a Redis that takes the request and never answers fails it too, instead of holding the shard.
      this.redis = new Redis({
        ...redisClientOptions(this.o.redisUrl),
        maxRetriesPerRequest: 1,
        disconnectTimeout: 500,
        commandTimeout: this.timing.commandTimeoutMs,
        connectTimeout: this.timing.commandTimeoutMs,
      });
      // Reported by waitForTurn when a turn cannot be taken; an idle connection's errors are noise.
      this.redis.on('error', () => undefined);
    }
    return this.redis;
  }

  private dropConnection(): void {
    const redis = this.redis;
    this.redis = undefined;
    redis?.disconnect();
  }

  private reportUnreachable(err: unknown): void {
    const now = Date.now();
    // Once when it starts, then one line every warnEveryMs (30 s) while it lasts, for all the shards waiting.
    if (this.lastWarnedAt !== null && now - this.lastWarnedAt < this.timing.warnEveryMs) return;
    this.lastWarnedAt = now;
    this.o.logger.warn(
      { redis: redactUrl(this.o.redisUrl), waiting: [...this.waiting.values()], err: err instanceof Error ? err.message.split('\n')[0] : String(err) },
      "cannot take an identify turn through Redis (REDIS_URL): it does not answer; the shards listed wait and retry, since identifying without a turn could break Discord's limit",
    );
  }
}
