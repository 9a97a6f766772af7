import { silentLogger } from '../../src/log/logger';
import { createLimiter, limiterSettings, redactUrl, redisClientOptions } from '../../src/llm/limiter';
import type { ModelClient } from '../../src/llm/types';
import { freePort } from '../helpers/redis';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model';
import { anthropicClient, ask } from './support';

describe('limiterSettings', () => {
  it('is a token bucket: burst of the limit, one token back every window/limit ms', () => {
    expect(limiterSettings({ requestsPerMinute: 60, maxConcurrent: 3 })).toEqual({
      maxConcurrent: 3, reservoir: 60, reservoirIncreaseAmount: 1, reservoirIncreaseInterval: 1000, reservoirIncreaseMaximum: 60,
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
      host: 'cache.internal', port: 6380, username: 'bot', password: 'p@ss', db: 2, tls: {},
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
    client = await anthropicClient(fake, { limits: { requestsPerMinute: 3, windowMs: 600, maxConcurrent: 'unlimited' } });
    await Promise.all([1, 2, 3, 4].map((i) => client.complete(ask(`q${i}`))));
    const t = fake.requests.map((r) => r.at);
    expect(t[2] - t[0]).toBeLessThan(150);
    expect(t[3] - t[0]).toBeGreaterThanOrEqual(180); // one token per 200 ms
  });

  it('caps concurrency', async () => {
    fake = await startFakeModelServer({ latencyMs: 40 });
    client = await anthropicClient(fake, { limits: { requestsPerMinute: 'unlimited', maxConcurrent: 2 } });
    await Promise.all([1, 2, 3, 4, 5].map((i) => client.complete(ask(`q${i}`))));
    expect(fake.maxInFlight()).toBe(2);
  });

  it("'unlimited' imposes nothing (benches)", async () => {
    fake = await startFakeModelServer({ latencyMs: 40 });
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
    const err = await createLimiter({ provider: 'anthropic', logger: silentLogger(), config: { redisUrl: url, connectTimeoutMs: 400 } }).catch((e: unknown) => e);
    const elapsed = Date.now() - t0;
    expect(err).toBeInstanceOf(Error);
    const message = (err as Error).message;
    expect(message).toBe(`Could not connect to Redis at REDIS_URL=redis://:***@127.0.0.1:${port} within 0.4 s; start Redis or fix REDIS_URL (unset it to limit model calls per process).`);
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(1_500);
  });
});
