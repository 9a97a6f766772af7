import Bottleneck from 'bottleneck';
import { LIMIT_DEFAULTS } from '../config/schema';
import type { Logger } from '../log/logger';
import type { ProviderName } from './types';

export interface LimiterConfig {
  /** Sustained requests per window (a minute in production), and also the largest burst. */
  requestsPerMinute?: number | 'unlimited';
  /** Requests in flight at once, across all processes sharing the limiter. */
  maxConcurrent?: number | 'unlimited';
  /** Length of the rate window. 60 000 in production; tests shorten it to stay fast. */
  windowMs?: number;
  /** When set, the limit is shared through this Redis by every process using the same idPrefix. */
  redisUrl?: string;
  /** Bound on waiting for Redis at start-up. */
  connectTimeoutMs?: number;
  /** Limiter id is `${idPrefix}-${provider}`: all processes of one bot must agree on it. */
  idPrefix?: string;
  /** Redis mode: how often each process re-checks shared capacity (refills are seen this late at most). */
  heartbeatIntervalMs?: number;
}

export const DEFAULT_LIMITS = {
  requestsPerMinute: LIMIT_DEFAULTS.requestsPerMinute,
  maxConcurrent: LIMIT_DEFAULTS.concurrency,
  windowMs: 60_000,
  connectTimeoutMs: 5_000,
  idPrefix: 'minutes-llm',
  heartbeatIntervalMs: 250,
} as const;

/** Idle limiter state expires from Redis, so changed limits take effect after a quiet period. */
const REDIS_STATE_TTL_MS = 10 * 60_000;

export interface ModelLimiter {
  /**
   * Runs `fn` when the limits allow. `expirationMs` frees the slot if the job never finishes (a
   * crashed process would otherwise hold a shared slot forever); `priority` 0-9, lower first.
   */
  schedule<T>(fn: () => Promise<T>, opts?: { expirationMs?: number; priority?: number }): Promise<T>;
  close(): Promise<void>;
}

/**
 * Pure Bottleneck settings (no connection): a token bucket holding `requestsPerMinute` tokens,
 * refilled one at a time, evenly over the window. That is how providers meter requests, so bursts
 * up to the limit go out at once and a steady stream never outruns the provider's own bucket; a
 * fixed "refill everything each minute" window would allow twice the limit around each refill.
 */
export function limiterSettings(config: LimiterConfig = {}): Bottleneck.ConstructorOptions {
  const rpm = config.requestsPerMinute ?? DEFAULT_LIMITS.requestsPerMinute;
  const conc = config.maxConcurrent ?? DEFAULT_LIMITS.maxConcurrent;
  const windowMs = config.windowMs ?? DEFAULT_LIMITS.windowMs;
  const concurrency = conc === 'unlimited' ? {} : { maxConcurrent: positive('maxConcurrent', conc) };
  if (rpm === 'unlimited') return concurrency;
  const n = positive('requestsPerMinute', rpm);
  return {
    ...concurrency,
    reservoir: n,
    reservoirIncreaseAmount: 1,
    // Rounded up so the refill never runs faster than the configured rate.
    reservoirIncreaseInterval: Math.ceil(windowMs / n),
    reservoirIncreaseMaximum: n,
  };
}

export function isUnlimited(config: LimiterConfig = {}): boolean {
  return config.requestsPerMinute === 'unlimited' && config.maxConcurrent === 'unlimited';
}

/** ioredis options from a redis:// or rediss:// URL (user, password, db path, TLS). */
export function redisClientOptions(url: string): Record<string, unknown> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`REDIS_URL is not a valid URL: ${redactUrl(url)}`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    throw new Error(`REDIS_URL must start with redis:// or rediss:// (got ${u.protocol}//)`);
  }
  const opts: Record<string, unknown> = {
    host: u.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
  };
  if (u.username) opts.username = decodeURIComponent(u.username);
  if (u.password) opts.password = decodeURIComponent(u.password);
  if (u.pathname.length > 1) opts.db = Number(u.pathname.slice(1));
  if (u.protocol === 'rediss:') opts.tls = {};
  return opts;
}

/** The URL without its password, fit for logs and error messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

export interface CreateLimiterOptions {
  provider: ProviderName;
  config?: LimiterConfig;
  logger: Logger;
}

/**
 * A limiter for one provider. With a redisUrl it joins the cluster `${idPrefix}-${provider}`, so
 * chat and side calls of every bot process draw from one shared budget (they share one API key).
 * Waiting for Redis is bounded: a bot that cannot share its limit should fail loudly at start-up,
 * not hang on its first message.
 */
export async function createLimiter(opts: CreateLimiterOptions): Promise<ModelLimiter> {
  const config = opts.config ?? {};
  const log = opts.logger.child({ component: 'llm-limiter', provider: opts.provider });
  if (isUnlimited(config)) {
    log.info('model calls are not rate-limited');
    return { schedule: (fn) => fn(), close: async () => {} };
  }
  const settings = limiterSettings(config);
  if (!config.redisUrl) {
    log.info({ ...describe(config), shared: false }, 'model call limiter ready');
    return wrap(new Bottleneck(settings));
  }
  const connectTimeoutMs = config.connectTimeoutMs ?? DEFAULT_LIMITS.connectTimeoutMs;
  const limiter = new Bottleneck({
    ...settings,
    id: `${config.idPrefix ?? DEFAULT_LIMITS.idPrefix}-${opts.provider}`,
    datastore: 'ioredis',
    clientOptions: redisClientOptions(config.redisUrl),
    clearDatastore: false,
    timeout: REDIS_STATE_TTL_MS,
    heartbeatInterval: config.heartbeatIntervalMs ?? DEFAULT_LIMITS.heartbeatIntervalMs,
  });
  let ready = false;
  limiter.on('error', (err: unknown) => {
    // Before the connection is up every reconnect attempt fails; the bound below reports that once.
    if (ready) log.warn({ err: err instanceof Error ? err.message : String(err) }, 'rate limiter Redis error');
  });
  const connected = await within(limiter.ready(), connectTimeoutMs);
  if (!connected) {
    await limiter.disconnect(false);
    throw new Error(
      `Could not connect to Redis at REDIS_URL=${redactUrl(config.redisUrl)} within ${connectTimeoutMs / 1000} s; ` +
        'start Redis or fix REDIS_URL (unset it to limit model calls per process).',
    );
  }
  ready = true;
  log.info({ ...describe(config), shared: true, redis: redactUrl(config.redisUrl) }, 'model call limiter ready');
  return wrap(limiter);
}

function wrap(limiter: Bottleneck): ModelLimiter {
  let closed = false;
  return {
    schedule: (fn, o = {}) => limiter.schedule({ expiration: o.expirationMs ?? null, priority: o.priority ?? null }, fn),
    async close() {
      if (closed) return;
      closed = true;
      // Drop queued jobs (their callers get an error) and give running ones a moment to finish,
      // so their slots are released in Redis before we disconnect.
      await within(limiter.stop({ dropWaitingJobs: true }), 2_000).catch(() => false);
      // QUIT is polite but waits on an unreachable Redis; then just drop the sockets.
      const quit = await within(limiter.disconnect(true), 2_000).catch(() => false);
      if (!quit) await limiter.disconnect(false);
    },
  };
}

/** Resolves true if `p` settles in time, false otherwise; never leaves a timer behind. */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describe(config: LimiterConfig) {
  return {
    requestsPerMinute: config.requestsPerMinute ?? DEFAULT_LIMITS.requestsPerMinute,
    maxConcurrent: config.maxConcurrent ?? DEFAULT_LIMITS.maxConcurrent,
  };
}

function positive(name: string, n: number): number {
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number or 'unlimited' (got ${n})`);
  return n;
}
