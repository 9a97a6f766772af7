import { ModelError } from '../../src/llm/errors';
import { createModelClient } from '../../src/llm/provider';
import { silentLogger } from '../../src/log/logger';
import type { ModelClient } from '../../src/llm/types';
import { fakeErrors } from '../fakes/model/errors';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import { anthropicClient, ask, openaiClient, recordingSleep } from './support';

async function failure(p: Promise<unknown>): Promise<ModelError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelError);
  return err as ModelError;
}

describe('retries, timeouts and typed errors', () => {
  let fake: FakeModelServer;
  let client: ModelClient;
  let waits: number[];

  async function start(which: 'anthropic' | 'openai', extra: Parameters<typeof anthropicClient>[1] = {}) {
    const rec = recordingSleep();
    waits = rec.waits;
    client = await (which === 'anthropic' ? anthropicClient : openaiClient)(fake, { sleep: rec.sleep, ...extra });
  }

  beforeEach(async () => {
    fake = await startFakeModelServer();
  });
  afterEach(async () => {
    await client?.close();
    await fake.close();
  });

  describe.each(['anthropic', 'openai'] as const)('%s', (which) => {
    it('waits exactly retry-after-ms after a 429, then succeeds', async () => {
      await start(which);
      fake.enqueue(fakeErrors.rateLimited(25), 'made it');
      const res = await client.complete(ask('q'));
      expect(res.text).toBe('made it');
      expect(waits).toEqual([25]);
      expect(fake.requests.map((r) => r.status)).toEqual([429, 200]);
    });

    it('honours retry-after in seconds', async () => {
      await start(which);
      fake.enqueue({ error: { status: 429 }, retryAfterSeconds: 2 }, 'ok');
      await client.complete(ask('q'));
      expect(waits).toEqual([2000]);
    });

    it('retries 529 and 500 with exponential backoff and jitter', async () => {
      await start(which, { retry: { baseDelayMs: 100 } });
      fake.enqueue(fakeErrors.overloaded(), fakeErrors.serverError(), 'recovered');
      const res = await client.complete(ask('q'));
      expect(res.text).toBe('recovered');
      // random() = 0.5: half the backoff fixed plus a quarter → 75, then 150
      expect(waits).toEqual([75, 150]);
    });

    it('gives up after maxAttempts with a typed unavailable error', async () => {
      await start(which, { retry: { maxAttempts: 3 } });
      fake.enqueue(fakeErrors.overloaded(), fakeErrors.overloaded(), fakeErrors.overloaded(), 'never');
      const err = await failure(client.complete(ask('q')));
      expect(err.kind).toBe('unavailable');
      expect(fake.requests).toHaveLength(3);
      expect(waits).toHaveLength(2);
    });

    it('does not wait for a retry-after beyond the cap; the caller learns how long', async () => {
      await start(which, { retry: { maxRetryAfterMs: 10_000 } });
      fake.enqueue({ error: { status: 429 }, retryAfterSeconds: 90 });
      const err = await failure(client.complete(ask('q')));
      expect(err).toMatchObject({ kind: 'rate_limited', retryAfterMs: 90_000 });
      expect(err.userMessage()).toBe('The model provider is rate-limiting the bot; please try again in about 90 s.');
      expect(waits).toEqual([]);
    });

    it('does not retry auth errors, and keeps keys out of the message', async () => {
      await start(which);
      fake.enqueue({ error: { status: 401, message: 'invalid key sk-ant-api03-SECRETSECRETSECRET' } });
      const err = await failure(client.complete(ask('q')));
      expect(err.kind).toBe('auth');
      expect(err.retryable).toBe(false);
      expect(err.message).not.toContain('SECRET');
      expect(err.message).not.toContain('test-anthropic-key');
      expect(err.userMessage()).not.toMatch(/401|key sk/);
      expect(fake.requests).toHaveLength(1);
    });

    it('types context-too-long errors and does not retry them', async () => {
      await start(which);
      fake.enqueue(fakeErrors.contextTooLong());
      const err = await failure(client.complete(ask('q')));
      expect(err.kind).toBe('context_too_long');
      expect(fake.requests).toHaveLength(1);
    });

    it('types a slow answer as timeout, promptly, after one retry (a hung connection often works on a fresh one)', async () => {
      await start(which, { timeoutMs: 100 });
      fake.enqueue({ text: 'too late', delayMs: 5_000 }, { text: 'too late again', delayMs: 5_000 }, 'never asked');
      const t0 = Date.now();
      const err = await failure(client.complete(ask('q')));
      expect(err.kind).toBe('timeout');
      expect(Date.now() - t0).toBeLessThan(2_000);
      expect(fake.requests).toHaveLength(2);
    });

    it('does not retry an overload that arrives after part of the reply was streamed', async () => {
      await start(which);
      fake.enqueue({ text: 'part one part two', failMidStream: { status: 529, type: 'overloaded_error' } }, 'second try');
      const shown: string[] = [];
      const err = await failure(client.complete(ask('q', { onText: (d) => shown.push(d) })));
      expect(shown.join('')).toBe('part one');
      expect(err.kind).toBe('unavailable');
      expect(err.retryable).toBe(false);
      expect(fake.requests).toHaveLength(1);
    });

    it('retries a stream that fails before any text', async () => {
      await start(which);
      fake.enqueue({ text: '', failMidStream: { status: 529, type: 'overloaded_error' } }, 'second try');
      const shown: string[] = [];
      const res = await client.complete(ask('q', { onText: (d) => shown.push(d) }));
      expect(res.text).toBe('second try');
      expect(shown.join('')).toBe('second try');
      expect(fake.requests).toHaveLength(2);
    });

    it("rejects with the caller's abort reason, not a ModelError", async () => {
      await start(which);
      fake.enqueue({ text: 'slow', delayMs: 5_000 });
      const ctrl = new AbortController();
      const p = client.complete(ask('q', { signal: ctrl.signal }));
      setTimeout(() => ctrl.abort(new Error('user left')), 50);
      await expect(p).rejects.toThrow('user left');
    });
  });

  it('types a refused connection as unavailable and retries it', async () => {
    const url = fake.anthropicBaseURL;
    await fake.close();
    const rec = recordingSleep();
    client = await createModelClient({
      logger: silentLogger(),
      env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: url },
      limits: { requestsPerMinute: 'unlimited', maxConcurrent: 'unlimited' },
      retry: { maxAttempts: 2 },
      sleep: rec.sleep,
    });
    fake = await startFakeModelServer(); // for afterEach
    const err = await failure(client.complete(ask('q')));
    expect(err.kind).toBe('unavailable');
    expect(rec.waits).toHaveLength(1);
  });

  it('rejects calls after close()', async () => {
    await start('anthropic');
    await client.close();
    await expect(client.complete(ask('q'))).rejects.toThrow('closed');
  });
});
