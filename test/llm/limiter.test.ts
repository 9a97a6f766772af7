import { silentLogger } from '../../src/log/logger';
import { createLimiter, limiterSettings, redactUrl, redisClientOptions } from '../../src/llm/limiter';
import type { ModelClient } from '../../src/llm/types';
import { freePort } from '../helpers/redis';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import { anthropicClient, ask } from './support';

describe('limiterSettings', () => {
  it('is a token bucket: burst of the limit, one token back every window/limit ms', () => {
    expect(limiterSettings({ requestsPerMinute: 60, maxConcurrent: 3 })).toEqual({
      maxConcurrent: 3,
      reservoir: 60,
      reservoirIncreaseAmount: 1,
      reservoirIncreaseInterval: 1000,
      reservoirIncreaseMaximum: 60,
    });
    expect(limiterSettings({ requestsPerMinute: 7, windowMs: 1000, maxConcurrent: 'unlimited' }).reservoirIncreaseInterval).toBe(143);
    expect(limiterSettings({ requestsPerMinute: 'unlimited', maxConcurrent: 2 })).toEqual({ maxConcurrent: 2 });
    expect(limiterSettings()).toMatchObject({ maxConcurrent: 4, reservoir: 50 });
  });

  it('rejects nonsense limits', () => {
    expect(() => limiterSettings({ requestsPerMinute: 0 })).toThrow(/requestsPerMinute must be a positive number or 'unlimited'/);
    expect(() => limiterSettings({ maxConcurrent: -1 })).toThrow(/maxConcurrent/);
  });
});

describe('redisClientOptions', () => {
  it('reads host, port, credentials, db and TLS from the URL', () => {
    expect(redisClientOptions('rediss://bot:p%40ss@cache.internal:6380/2')).toEqual({
      host: 'cache.internal',
      port: 6380,
      username: 'bot',
      password: 'p@ss',
      db: 2,
      tls: {},
    });
    expect(redisClientOptions('redis://localhost')).toEqual({ host: 'localhost', port: 6379 });
  });

  it('rejects other schemes without echoing passwords', () => {
    expect(() => redisClientOptions('http://x:secret@h')).toThrow(/must start with redis:\/\/ or rediss:\/\//);
    expect(redactUrl('redis://user:secret@h:1/0')).toBe('redis://user:***@h:1/0');
  });
});

describe('local limiter (one process)', () => {
  let fake: FakeModelServer;
  let client: ModelClient;
  afterEach(async () => {
    await client.close();
    await fake.close();
  });

  it('lets a burst of the limit through, then paces the rest', async () => {
    fake = await startFakeModelServer();
    const before = Date.now(); // the bucket starts full no earlier than this
    client = await anthropicClient(fake, { limits: { requestsPerMinute: 3, windowMs: 3000, maxConcurrent: 'unlimited' } });
    await Promise.all([1, 2, 3, 4].map((i) => client.complete(ask(`q${i}`))));
    const t = fake.requests.map((r) => r.at - before);
    // One token back per 1000 ms: the 4th cannot go before then, the burst of 3 needs no refill
    // (a loose bound, so a busy machine does not make this flaky).
    expect(t[3]).toBeGreaterThanOrEqual(1000);
    expect(t[2]).toBeLessThan(1000);
  });

  it('caps concurrency', async () => {
    fake = await startFakeModelServer({ latencyMs: 200 });
    client = await anthropicClient(fake, { limits: { requestsPerMinute: 'unlimited', maxConcurrent: 2 } });
    await Promise.all([1, 2, 3, 4, 5].map((i) => client.complete(ask(`q${i}`))));
    expect(fake.maxInFlight()).toBe(2);
  });

  it("'unlimited' imposes nothing (benches)", async () => {
    fake = await startFakeModelServer({ latencyMs: 300 });
    client = await anthropicClient(fake, { limits: { requestsPerMinute: 'unlimited', maxConcurrent: 'unlimited' } });
    await Promise.all([1, 2, 3, 4, 5].map((i) => client.complete(ask(`q${i}`))));
    expect(fake.maxInFlight()).toBe(5);
  });
});

describe('Redis connection', () => {
  it('gives up within the bound with one line naming REDIS_URL (and no password)', async () => {
    const port = await freePort(); // nothing listens there
    const url = `redis://:hunter2@127.0.0.1:${port}`;
    const t0 = Date.now();
    const err = await createLimiter({ provider: 'anthropic', logger: silentLogger(), config: { redisUrl: url, connectTimeoutMs: 400 } }).catch(
      (e: unknown) => e,
    );
    const elapsed = Date.now() - t0;
    expect(err).toBeInstanceOf(Error);
    const message = (err as Error).message;
    expect(message).toBe(
      `Could not connect to Redis at REDIS_URL=redis://:***@127.0.0.1:${port} within 0.4 s; start Redis or fix REDIS_URL (unset it to limit model calls per process).`,
    );
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(1_500);
  });
});

describe('errors through a real limiter', () => {
  it('reach the caller typed, and retries go through the limiter again', async () => {
    const fake = await startFakeModelServer();
    const waits: number[] = [];
    const client = await anthropicClient(fake, {
      limits: { requestsPerMinute: 10, maxConcurrent: 1 },
      sleep: async (ms) => void waits.push(ms),
    });
    try {
      fake.enqueue({ error: { status: 429 }, retryAfterMs: 5 }, 'ok', { error: { status: 401 } });
      expect((await client.complete(ask('q'))).text).toBe('ok');
      expect(waits).toEqual([5]);
      await expect(client.complete(ask('q'))).rejects.toMatchObject({ name: 'ModelError', kind: 'auth' });
    } finally {
      await client.close();
      await fake.close();
    }
  });

  it('serves chat before queued side tasks', async () => {
    const fake = await startFakeModelServer({ latencyMs: 100 });
    const client = await anthropicClient(fake, { limits: { requestsPerMinute: 'unlimited', maxConcurrent: 1 } });
    try {
      const side = [1, 2, 3].map((i) => client.complete(ask(`side ${i}`, { purpose: 'side' })));
      const chat = client.complete(ask('chat'));
      await Promise.all([...side, chat]);
      // side 1 was already running; the chat call jumps the two still queued
      expect(fake.requests.map((r) => r.lastUserText)).toEqual(['side 1', 'chat', 'side 2', 'side 3']);
    } finally {
      await client.close();
      await fake.close();
    }
  });
});
