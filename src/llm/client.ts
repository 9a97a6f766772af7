import type { Logger } from '../log/logger';
import type { ProviderAdapter } from './adapter';
import { ModelError, providerWords, toModelError } from './errors';
import type { ModelLimiter } from './limiter';
import { DEFAULT_RETRY_POLICY, realSleep, withRetry, type RetryPolicy, type Sleep } from './retry';
import type { ModelClient, ModelRequest, ModelResponse } from './types';

/** A person waiting for a reply goes ahead of queued maintenance work (Bottleneck: lower first). */
const PRIORITY = { chat: 3, side: 6 } as const;

export interface ClientCoreOptions {
  adapter: ProviderAdapter;
  limiter: ModelLimiter;
  models: { chat: string; side: string };
  maxTokens: { chat: number; side: number };
  /** Per attempt, from the moment the limiter lets the request go until the reply is complete. */
  timeoutMs: number;
  retry?: Partial<RetryPolicy>;
  sleep?: Sleep;
  random?: () => number;
  logger: Logger;
}

/**
 * Composes adapter + limiter + retry + timeout into a ModelClient. Each attempt passes through
 * the limiter on its own (every HTTP request counts against the provider's limit), and backoff
 * sleeps happen outside it so a waiting retry does not hold a concurrency slot.
 */
export function createClientCore(opts: ClientCoreOptions): ModelClient {
  const { adapter, limiter, models, logger } = opts;
  const provider = adapter.provider;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
  let closed = false;

  async function attempt(req: ModelRequest, state: { streamed: boolean; timeouts: number }): Promise<ModelResponse> {
    req.signal?.throwIfAborted();
    const ctrl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctrl.abort();
    }, opts.timeoutMs);
    const forward = () => ctrl.abort(req.signal?.reason);
    req.signal?.addEventListener('abort', forward, { once: true });
    const userOnText = req.onText;
    const onText = userOnText
      ? (delta: string) => {
          state.streamed = true;
          userOnText(delta);
        }
      : undefined;
    try {
      return await adapter.send({ req, model: models[req.purpose], maxTokens: req.maxTokens ?? opts.maxTokens[req.purpose], signal: ctrl.signal, onText });
    } catch (err) {
      if (req.signal?.aborted) throw req.signal.reason;
      if (timedOut) {
        // A hung connection often works on a fresh one: retry once; a second hang would only
        // double the wait, so then the person is told what to check.
        state.timeouts++;
        const { name, urlVar } = providerWords(provider);
        throw new ModelError('timeout', `${provider}: no complete answer within ${opts.timeoutMs} ms`, {
          provider,
          cause: err,
          retryable: state.timeouts < 2 && !state.streamed,
          hint: `${name} did not answer within ${Math.round(opts.timeoutMs / 1000)} s (tried ${state.timeouts}×); check that the server at ${urlVar} is up and not overloaded, then try again.`,
        });
      }
      const mapped = toModelError(err, provider, adapter.baseURL);
      if (!mapped) throw err;
      // The person has already seen part of this reply; a retry would show it twice.
      if (state.streamed && mapped.retryable) {
        throw new ModelError(mapped.kind, `${mapped.message} (after partial output, not retried)`, {
          provider,
          status: mapped.status,
          retryAfterMs: mapped.retryAfterMs,
          retryable: false,
          hint: mapped.hint,
          cause: err,
        });
      }
      throw mapped;
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', forward);
    }
  }

  return {
    provider,
    models,
    async complete(req: ModelRequest): Promise<ModelResponse> {
      if (closed) throw new Error('model client is closed');
      const state = { streamed: false, timeouts: 0 };
      const started = Date.now();
      const res = await withRetry(
        () =>
          abortable(
            limiter.schedule(() => attempt(req, state), { expirationMs: opts.timeoutMs + 10_000, priority: PRIORITY[req.purpose] }),
            req.signal,
          ),
        { policy, sleep: opts.sleep ?? realSleep, random: opts.random ?? Math.random, logger, signal: req.signal },
      );
      logger.debug({ purpose: req.purpose, model: res.model, usage: res.usage, ms: Date.now() - started }, 'model call done');
      return res;
    },
    async close() {
      if (closed) return;
      closed = true;
      await limiter.close();
      await adapter.close();
    },
  };
}

/** Lets a caller abort while its request is still queued in the limiter. */
function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) {
    p.catch(() => {}); // the caller gets the abort; the queued request's own rejection is not theirs
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
