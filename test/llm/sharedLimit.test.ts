import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { redisSuite, startRedisServer, type RedisServer } from '../helpers/redis';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import type { LimiterConfig } from '../../src/llm/limiter';

/**
 * The real thing: two separate node processes, each with its own ModelClient, share one limit
 * through one Redis. The fake model server (in this process) sees every request from both.
 */
const ROOT = path.resolve(__dirname, '../..');
const runs = redisSuite('shared-limit tests');

(runs ? describe : describe.skip)('limit shared through Redis by two processes', () => {
  let redis: RedisServer;
  let fake: FakeModelServer;
  let procs: { name: string; child: ChildProcessWithoutNullStreams; lines: ReturnType<typeof readLines> }[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    procs = ['alpha', 'beta'].map((name) => {
      const child = spawn(process.execPath, ['-r', './test/helpers/register-ts.js', 'test/llm/fixtures/limitedClient.js'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '' },
      });
      return { name, child, lines: readLines(child) };
    });
    for (const p of procs) expect(await p.lines.next()).toBe('up');
  });
  afterAll(async () => {
    await Promise.all(
      procs.map(
        (p) =>
          new Promise((resolve) => {
            if (p.child.exitCode !== null) return resolve(undefined);
            p.child.once('exit', resolve);
            p.child.stdin.end(); // the fixture exits when its input ends
          }),
      ),
    );
    await redis?.stop();
  });
  afterEach(async () => {
    await fake?.close();
  });

  /** Both processes build a client with `limits` on one Redis, then fire their jobs together. */
  async function runTwo(limits: LimiterConfig, jobsEach: number) {
    const idPrefix = `test-${process.pid}-${Date.now()}`;
    for (const p of procs) {
      const cfg = {
        name: p.name,
        jobs: jobsEach,
        env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: fake.anthropicBaseURL },
        limits: { ...limits, redisUrl: redis.url, idPrefix, heartbeatIntervalMs: 50 },
      };
      p.child.stdin.write(`${JSON.stringify(cfg)}\n`);
    }
    for (const p of procs) expect(await p.lines.next()).toBe('ready');
    for (const p of procs) p.child.stdin.write('go\n');
    return Promise.all(procs.map(async (p) => JSON.parse(await p.lines.next()) as { ok: number; failed: string[] }));
  }

  it('never lets the two processes together exceed the request rate', async () => {
    fake = await startFakeModelServer();
    // 4 requests per 4 s window: a burst of 4, then one more every 1000 ms, for both processes together.
    const results = await runTwo({ requestsPerMinute: 4, windowMs: 4_000, maxConcurrent: 'unlimited' }, 3);
    expect(results).toEqual([
      { ok: 3, failed: [] },
      { ok: 3, failed: [] },
    ]);
    const times = fake.requests.map((r) => r.at).sort((a, b) => a - b);
    expect(times).toHaveLength(6);
    expect(new Set(fake.requests.map((r) => r.lastUserText.split(' ')[0]))).toEqual(new Set(['alpha', 'beta']));
    // Token bucket invariant, for every window [t_i, t_j] of arrivals: at most the burst of 4 plus
    // one per 1000 ms elapsed, with 300 ms of slack because arrival at the server lags the grant by
    // a varying amount on a busy machine. Separate limits would let all 6 through at once.
    const violations: string[] = [];
    for (let i = 0; i < times.length; i++) {
      for (let j = i; j < times.length; j++) {
        const allowed = 4 + Math.ceil((times[j] - times[i] + 300) / 1000);
        if (j - i + 1 > allowed) violations.push(`${j - i + 1} requests within ${times[j] - times[i]} ms (allowed ${allowed})`);
      }
    }
    expect(violations).toEqual([]);
    // the 6th needed two refills: more than 1000 ms after the burst was granted
    expect(times[5] - times[0]).toBeGreaterThanOrEqual(700);
  });

  it('never lets the two processes together exceed the concurrency limit', async () => {
    fake = await startFakeModelServer({ latencyMs: 400 });
    const results = await runTwo({ requestsPerMinute: 'unlimited', maxConcurrent: 2 }, 3);
    expect(results).toEqual([
      { ok: 3, failed: [] },
      { ok: 3, failed: [] },
    ]);
    expect(fake.requests).toHaveLength(6);
    expect(fake.maxInFlight()).toBe(2);
  });
});

/** Line reader over a child's stdout; rejects with its stderr if it exits first. */
function readLines(child: ChildProcessWithoutNullStreams) {
  const queue: string[] = [];
  const waiters: { resolve: (l: string) => void; reject: (e: Error) => void }[] = [];
  let buffer = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout.on('data', (c: Buffer) => {
    buffer += c.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const w = waiters.shift();
      if (w) w.resolve(line);
      else queue.push(line);
    }
  });
  child.on('exit', (code) => {
    for (const w of waiters.splice(0)) w.reject(new Error(`child exited (${code}) early: ${stderr.trim().slice(-800)}`));
  });
  return {
    next: () =>
      new Promise<string>((resolve, reject) => {
        const l = queue.shift();
        if (l !== undefined) resolve(l);
        else if (child.exitCode !== null) reject(new Error(`child exited (${child.exitCode}): ${stderr.trim().slice(-800)}`));
        else waiters.push({ resolve, reject });
      }),
  };
}
