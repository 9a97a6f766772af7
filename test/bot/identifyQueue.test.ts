import { IDENTIFY_TURN_MS, IdentifyQueue } from '../../src/bot/shards/identifyQueue';
import { freePort, redisSuite, startRedisServer, type RedisServer } from '../helpers/redis';
import { capturedLogger } from '../helpers/botHarness';

/**
 * Identify turns through a real Redis: separate IdentifyQueues (each its own connection, as on
 * separate hosts) share one bot's turns, per concurrency bucket.
 */
const runs = redisSuite('identify-turn tests');

/** What discord.js's gateway manager hands the throttler builder. */
const gateway = (maxConcurrency: number) => ({
  fetchGatewayInformation: async () => ({ session_start_limit: { max_concurrency: maxConcurrency } }),
});

(runs ? describe : describe.skip)('identify turns shared through Redis', () => {
  let redis: RedisServer;
  const queues: IdentifyQueue[] = [];
  const queue = (token: string, redisUrl = redis.url) => {
    const q = new IdentifyQueue({ redisUrl, token, logger: capturedLogger().logger });
    queues.push(q);
    return q;
  };
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(async () => {
    await Promise.all(queues.splice(0).map((q) => q.close()));
  });
  afterAll(async () => {
    await redis?.stop();
  });

  /** When each shard's turn came, in ms after `t0`. */
  async function turns(list: { q: IdentifyQueue; shard: number; maxConcurrency: number }[]): Promise<number[]> {
    const t0 = Date.now();
    const throttlers = await Promise.all(list.map((l) => l.q.buildThrottler(gateway(l.maxConcurrency))));
    return Promise.all(list.map((l, i) => throttlers[i].waitForIdentify(l.shard, new AbortController().signal).then(() => Date.now() - t0)));
  }

  it("spaces one bucket's identifies from two hosts by a turn, and lets other buckets and other bots go at once", async () => {
    // One bot with max_concurrency 1 on two hosts; another with max_concurrency 2, shards 0-2 on two hosts.
    const [a0, a1, b0, b1, b2] = await turns([
      { q: queue('bot-a'), shard: 0, maxConcurrency: 1 },
      { q: queue('bot-a'), shard: 1, maxConcurrency: 1 },
      { q: queue('bot-b'), shard: 0, maxConcurrency: 2 },
      { q: queue('bot-b'), shard: 1, maxConcurrency: 2 },
      { q: queue('bot-b'), shard: 2, maxConcurrency: 2 },
    ]);
    const [first, second] = [a0, a1].sort((x, y) => x - y);
    expect(first).toBeLessThan(1_000);
    expect(second - first).toBeGreaterThanOrEqual(IDENTIFY_TURN_MS - 50);
    expect(second - first).toBeLessThan(IDENTIFY_TURN_MS + 1_000);
    // Bot b: buckets 0 (shards 0 and 2) and 1 (shard 1); bucket 1 never waits.
    expect(b1).toBeLessThan(1_000);
    expect(Math.abs(b2 - b0)).toBeGreaterThanOrEqual(IDENTIFY_TURN_MS - 50);
    expect(Math.min(b0, b2)).toBeLessThan(1_000);
  }, 20_000);

  it('a shard that stops while it waits for its turn is released at once', async () => {
    const q = queue('bot-c');
    const throttler = await q.buildThrottler(gateway(1));
    await throttler.waitForIdentify(0, new AbortController().signal);
    const stop = new AbortController();
    const waiting = throttler.waitForIdentify(1, stop.signal);
    const t0 = Date.now();
    setTimeout(() => stop.abort(), 200);
    await expect(waiting).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(1_500);
  });

  it('without Redis a shard never identifies: it waits, says so once, and stops when asked', async () => {
    const { logger, logs } = capturedLogger();
    const q = new IdentifyQueue({ redisUrl: `redis://:secret@127.0.0.1:${await freePort()}`, token: 'bot-d', logger });
    queues.push(q);
    const throttler = await q.buildThrottler(gateway(1));
    const stop = new AbortController();
    let done = false;
    const waiting = throttler.waitForIdentify(0, stop.signal).finally(() => (done = true));
    await new Promise((r) => setTimeout(r, 2_500));
    expect(done).toBe(false);
    const warned = logs.filter((l) => /cannot take an identify turn through Redis/.test(String(l.msg)));
    expect(warned).toHaveLength(1);
    expect(JSON.stringify(warned)).not.toContain('secret');
    stop.abort();
    await expect(waiting).rejects.toThrow();
  });
});

(runs ? describe : describe.skip)('identify turns when Redis stops answering', () => {
  const queues: IdentifyQueue[] = [];
  const servers: RedisServer[] = [];
  afterEach(async () => {
    await Promise.all(queues.splice(0).map((q) => q.close()));
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  /** Log lines that say a shard waits on Redis. */
  const waiting = (logs: Record<string, unknown>[]) => logs.filter((l) => /cannot take an identify turn/.test(String(l.msg)));

  it('a Redis that accepts but never answers: the shard waits with a bounded retry, logs every interval naming Redis and the shard, and goes once Redis answers', async () => {
    const redis = await startRedisServer();
    servers.push(redis);
    const { logger, logs } = capturedLogger();
    const q = new IdentifyQueue({ redisUrl: redis.url, token: 'bot-e', logger, timing: { commandTimeoutMs: 300, retryMaxMs: 400, warnEveryMs: 1_000 } });
    queues.push(q);
    const throttler = await q.buildThrottler(gateway(2));
    // Bucket 1's turn is free: the connection is up and working before Redis stops answering.
    await throttler.waitForIdentify(1, new AbortController().signal);
    redis.pause();
    let done = false;
    const t0 = Date.now();
    const turn = throttler.waitForIdentify(0, new AbortController().signal).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 2_600));
    expect(done).toBe(false);
    const lines = waiting(logs);
    // One line when it starts, then one a second (the interval set here; 30 s by default): 3 in 2.6 s.
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.length).toBeLessThanOrEqual(4);
    for (const l of lines) {
      expect(l.redis).toBe(redis.url);
      expect(String(l.msg)).toMatch(/Redis/);
      expect(l.waiting).toEqual(['shard 0 (bucket 0)']);
    }
    redis.resume();
    await turn;
    // The first request, sent before Redis stopped answering, reserved a turn when it woke: at most
    // that one turn is lost (retries only PING until Redis answers, so they reserve nothing).
    expect(Date.now() - t0).toBeLessThan(2_600 + IDENTIFY_TURN_MS + 1_500);
    expect(logs.some((l) => /Redis answers again/.test(String(l.msg)))).toBe(true);
  }, 20_000);

  it('Redis stopped and started again on its address: the waiting shard takes its turn from the new one', async () => {
    const redis = await startRedisServer();
    const { logger, logs } = capturedLogger();
    const q = new IdentifyQueue({ redisUrl: redis.url, token: 'bot-f', logger, timing: { commandTimeoutMs: 300, retryMaxMs: 400, warnEveryMs: 1_000 } });
    queues.push(q);
    const throttler = await q.buildThrottler(gateway(1));
    await throttler.waitForIdentify(0, new AbortController().signal);
    await redis.stop();
    let done = false;
    const turn = throttler.waitForIdentify(1, new AbortController().signal).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(done).toBe(false);
    expect(waiting(logs).length).toBeGreaterThanOrEqual(1);
    expect(waiting(logs)[0].waiting).toEqual(['shard 1 (bucket 0)']);
    // A new Redis knows nothing of the old turns: the shard goes at once.
    servers.push(await startRedisServer({ port: redis.port }));
    const t = Date.now();
    await turn;
    expect(Date.now() - t).toBeLessThan(3_000);
  }, 20_000);
});
