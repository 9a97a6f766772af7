import type { Logger } from '../log/logger';
import { ModelError } from './errors';

export interface RetryPolicy {
  /** Total attempts including the first. 1 disables retries. */
  maxAttempts: number;
  /** First backoff; doubles per attempt. */
  baseDelayMs: number;
  /** Cap on one computed backoff. */
  maxDelayMs: number;
  /**
   * A provider asking us to wait longer than this is not waited for: the error goes back to the
   * caller (with retryAfterMs) so a person is told, instead of a reply silently hanging for minutes.
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
};

/** Sleeps `ms`, rejecting with the signal's reason if it aborts first. Injectable so tests don't wait. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export interface RetryDeps {
  policy: RetryPolicy;
  sleep: Sleep;
  /** Math.random by default; injectable so the jitter is deterministic in tests. */
  random: () => number;
  logger: Logger;
  signal?: AbortSignal;
}

/**
 * Runs `attempt` until it succeeds, throws something that is not a retryable ModelError, or the
 * attempts run out. `attempt` gets the 1-based attempt number.
 */
export async function withRetry<T>(attempt: (n: number) => Promise<T>, deps: RetryDeps): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      if (!(err instanceof ModelError) || !err.retryable || n >= deps.policy.maxAttempts) throw err;
      if (err.retryAfterMs !== undefined && err.retryAfterMs > deps.policy.maxRetryAfterMs) throw err;
      const delay = retryDelay(n, err.retryAfterMs, deps.policy, deps.random);
      deps.logger.warn({ kind: err.kind, status: err.status, attempt: n, delayMs: delay }, 'model call failed; retrying');
      await deps.sleep(delay, deps.signal);
    }
  }
}

/**
 * The provider's own retry-after is honoured exactly (it knows when the window reopens). Without
 * one: exponential backoff with "equal jitter" (half fixed, half random), so processes that failed
 * together do not all come back at the same instant, yet never retry almost immediately.
 */
export function retryDelay(attempt: number, retryAfterMs: number | undefined, policy: RetryPolicy, random: () => number): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exp / 2 + (exp / 2) * random());
}
