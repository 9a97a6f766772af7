import { silentLogger } from '../../src/log/logger';
import { createLimiter, type ModelLimiter } from '../../src/llm/limiter';
import { LeaseGrants, leasedLimiter, type LeasedLimiter } from '../../src/llm/limiterLease';

/** Two "workers" leasing from one owner's real Bottleneck limiter, the messages passed on the next turn of the loop (as between threads). */
async function twoWorkers(limits: { maxConcurrent: number; requestsPerMinute: number | 'unlimited' }) {
  const owner = await createLimiter({ provider: 'anthropic', config: limits, logger: silentLogger() });
  const workers: LeasedLimiter[] = [];
  const grants: LeaseGrants[] = [];
  for (let i = 0; i < 2; i++) {
    const g = new LeaseGrants(owner, (lease) => setImmediate(() => workers[i].granted(lease)));
    grants.push(g);
    workers.push(leasedLimiter((ask) => setImmediate(() => g.handle(ask))));
  }
  return { owner, workers, grants };
}

describe('model calls leased from one limiter', () => {
  let owner: ModelLimiter | undefined;
  afterEach(async () => {
    await owner?.close();
    owner = undefined;
  });

  it('two workers together never exceed the concurrency, and every call runs', async () => {
    const t = await twoWorkers({ maxConcurrent: 2, requestsPerMinute: 'unlimited' });
    owner = t.owner;
    let inFlight = 0;
    let most = 0;
    const call = async (w: LeasedLimiter, i: number) =>
      w.schedule(async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 10));
        inFlight--;
        return i;
      });
    const done = await Promise.all(Array.from({ length: 12 }, (_, i) => call(t.workers[i % 2], i)));
    expect(done).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(most).toBe(2);
  });

  it('the requests per minute are counted once for both workers', async () => {
    const t = await twoWorkers({ maxConcurrent: 10, requestsPerMinute: 3 });
    owner = t.owner;
    let ran = 0;
    for (let i = 0; i < 5; i++) void t.workers[i % 2].schedule(async () => ran++);
    await new Promise((r) => setTimeout(r, 200));
    // The bucket holds 3; the next token comes after 20 s.
    expect(ran).toBe(3);
  });

  it('a failed call gives its slot back; a worker that dies holding slots frees them', async () => {
    const t = await twoWorkers({ maxConcurrent: 1, requestsPerMinute: 'unlimited' });
    owner = t.owner;
    await expect(t.workers[0].schedule(async () => Promise.reject(new Error('provider down')))).rejects.toThrow('provider down');
    expect(await t.workers[1].schedule(async () => 'after a failure')).toBe('after a failure');
    // Worker 0 takes the only slot and never gives it back (its thread died mid-call).
    let holding!: () => void;
    const stuck = t.workers[0].schedule(() => new Promise<void>((r) => (holding = r)));
    await new Promise((r) => setTimeout(r, 20));
    let second = false;
    const next = t.workers[1].schedule(async () => (second = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(second).toBe(false);
    t.grants[0].releaseAll();
    await next;
    expect(second).toBe(true);
    holding();
    await stuck;
  });

  it('a closed worker refuses new calls and its waiting ones fail', async () => {
    const t = await twoWorkers({ maxConcurrent: 1, requestsPerMinute: 'unlimited' });
    owner = t.owner;
    let release!: () => void;
    const busy = t.workers[1].schedule(() => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setTimeout(r, 20));
    const waiting = t.workers[0].schedule(async () => 'never');
    await t.workers[0].close();
    await expect(waiting).rejects.toThrow('the model limiter is closed');
    await expect(t.workers[0].schedule(async () => 'x')).rejects.toThrow('the model limiter is closed');
    release();
    await busy;
    // The slot granted to the closed worker after it closed went straight back.
    expect(await t.workers[1].schedule(async () => 'free')).toBe('free');
  });
});
