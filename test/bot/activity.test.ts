import { BotActivity, TokenBucket } from '../../src/bot/intake/activity';

describe("the bot's activity on the REST path", () => {
  it('counts REST calls while they are in flight, whether they succeed or fail', async () => {
    const a = new BotActivity();
    let release!: () => void;
    const call = a.restCall(() => new Promise<void>((r) => (release = r)));
    const failing = a.restCall(() => Promise.reject(new Error('403')));
    expect(a.restInFlight).toBe(2);
    await expect(failing).rejects.toThrow('403');
    expect(a.restInFlight).toBe(1);
    release();
    await call;
    expect(a.restInFlight).toBe(0);
  });

  it('a quiet wait ends once nothing has been in flight for the quiet time, not while an answer runs', async () => {
    const a = new BotActivity();
    const done = a.answering();
    const started = performance.now();
    const waiting = a.quiet({ quietMs: 100, maxWaitMs: 10_000, stop: () => false });
    setTimeout(done, 300);
    await waiting;
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
  });

  it('a bot that is never quiet still gets its background work: the wait ends at its bound, or when stopping', async () => {
    const a = new BotActivity();
    a.answering();
    let started = performance.now();
    await a.quiet({ quietMs: 50, maxWaitMs: 300, stop: () => false });
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(waited).toBeLessThan(2_000);
    let stopping = false;
    setTimeout(() => (stopping = true), 100);
    started = performance.now();
    await a.quiet({ quietMs: 50, maxWaitMs: 60_000, stop: () => stopping });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('a token bucket gives its burst at once, then refills at its rate', () => {
    let now = 0;
    const b = new TokenBucket({ burst: 3, perSecond: 2, now: () => now });
    expect([b.take(), b.take(), b.take(), b.take()]).toEqual([true, true, true, false]);
    now = 400;
    expect(b.take()).toBe(false);
    now = 500;
    expect([b.take(), b.take()]).toEqual([true, false]);
    now = 60_000;
    expect([b.take(), b.take(), b.take(), b.take()]).toEqual([true, true, true, false]);
  });
});
