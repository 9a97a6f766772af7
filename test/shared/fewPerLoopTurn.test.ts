import { FewPerLoopTurn } from '../../src/shared/queue';

describe('FewPerLoopTurn', () => {
  it('lets waiters go in the order they asked, at most N per turn of the event loop, with I/O polled between', async () => {
    const gate = new FewPerLoopTurn(2);
    const events: string[] = [];
    const started = Array.from({ length: 5 }, (_, i) =>
      gate.next().then(() => {
        events.push(`go ${i}`);
      }),
    );
    // One mark per turn of the loop (an immediate that queues the next), to see where the batches fall.
    let ticking = true;
    const tick = () => {
      events.push('tick');
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    await Promise.all(started);
    ticking = false;
    const goes = events.filter((e) => e !== 'tick');
    expect(goes).toEqual(['go 0', 'go 1', 'go 2', 'go 3', 'go 4']);
    // Batches of at most two between the loop's turns, so at least three turns for five waiters.
    const batches = events
      .join(',')
      .split(/,?tick,?/)
      .filter(Boolean)
      .map((b) => b.split(','));
    expect(batches.every((b) => b.length <= 2)).toBe(true);
    expect(batches.length).toBeGreaterThanOrEqual(3);
  });

  it('drained settles at once when nothing waits, else once the last waiter has gone', async () => {
    const gate = new FewPerLoopTurn(2);
    await expect(gate.drained()).resolves.toBeUndefined();
    const order: string[] = [];
    const goes = Array.from({ length: 5 }, (_, i) => gate.next().then(() => order.push(`go ${i}`)));
    const drained = gate.drained().then(() => order.push('drained'));
    await Promise.all([...goes, drained]);
    expect(order).toEqual(['go 0', 'go 1', 'go 2', 'go 3', 'go 4', 'drained']);
  });
});
