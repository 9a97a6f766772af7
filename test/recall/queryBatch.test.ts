import fc from 'fast-check';
import { admits, batchMs, freeAt, nextQueryBatch, PLAN_MARGIN, speedAtLeast, updatedSpeed, type WaitingQuery } from '../../src/embed/queryBatch';

/** The embedding queue's decisions (src/embed/queryBatch.ts), alone. */
describe('which waiting queries go to the model together', () => {
  test('one batch for queries that all have time; the caller that cannot make it even alone is told at once', () => {
    const waiting: WaitingQuery[] = [
      { texts: 1, deadline: 30 }, // 16.3 ms alone, planned as 32.6: late
      { texts: 1, deadline: 150 },
      { texts: 1, deadline: 150 },
      { texts: 1, deadline: 150 },
    ];
    expect(nextQueryBatch(waiting, 0, 1, 32)).toEqual({ take: [1, 2, 3], late: [0] });
  });

  test('a batch stops where it would end after a member’s deadline, planned at twice its length; the rest wait for the next', () => {
    // At speed 1, 1 text 16.3 ms, 2 texts 20.6, 3 texts 24.9; planned, twice that.
    const waiting: WaitingQuery[] = [
      { texts: 1, deadline: 45 },
      { texts: 1, deadline: 150 },
      { texts: 1, deadline: 150 },
    ];
    expect(nextQueryBatch(waiting, 0, 1, 32)).toEqual({ take: [0, 1], late: [] });
    expect(nextQueryBatch(waiting, 0, 1, 2)).toEqual({ take: [0, 1], late: [] });
    expect(nextQueryBatch(waiting, 0, 1, 1)).toEqual({ take: [0], late: [] });
  });

  test('a query that cannot make it in the batch after this one is told now, not when its wait is over', () => {
    // This batch: 4 texts, 29.2 ms; then one more alone, 16.3: planned 91 ms.
    const waiting: WaitingQuery[] = [
      ...Array.from({ length: 4 }, () => ({ texts: 1, deadline: 150 })),
      { texts: 1, deadline: 80 },
      { texts: 1, deadline: 100 },
    ];
    expect(nextQueryBatch(waiting, 0, 1, 4)).toEqual({ take: [0, 1, 2, 3], late: [4] });
  });

  test('property: a batch taken is expected to end before every member’s deadline, and the indices keep their order', () => {
    const query = fc.record({ texts: fc.integer({ min: 1, max: 4 }), deadline: fc.oneof(fc.double({ min: 0, max: 400, noNaN: true }), fc.constant(Infinity)) });
    fc.assert(
      fc.property(fc.array(query, { maxLength: 40 }), fc.double({ min: 0.1, max: 10, noNaN: true }), fc.integer({ min: 1, max: 32 }), (waiting, speed, max) => {
        const { take, late } = nextQueryBatch(waiting, 0, speed, max);
        const texts = take.reduce((n, i) => n + waiting[i].texts, 0);
        const after = take.length ? batchMs(speed, texts) : 0;
        expect(take.length).toBeLessThanOrEqual(max);
        for (const i of take) expect(PLAN_MARGIN * batchMs(speed, texts)).toBeLessThanOrEqual(waiting[i].deadline);
        for (const i of late) expect(PLAN_MARGIN * (after + batchMs(speed, waiting[i].texts))).toBeGreaterThan(waiting[i].deadline);
        expect([...take].sort((a, b) => a - b)).toEqual(take);
        expect(new Set([...take, ...late]).size).toBe(take.length + late.length);
        // Someone who has time alone is never left with nothing going.
        if (waiting.some((q) => PLAN_MARGIN * batchMs(speed, q.texts) <= q.deadline)) expect(take.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe('the model’s speed and a new query’s chances', () => {
  test('a batch that takes three times the reference moves the speed halfway there; nonsense does not move it', () => {
    expect(updatedSpeed(1, 8, 3 * batchMs(1, 8))).toBeCloseTo(2);
    expect(updatedSpeed(1, 0, 50)).toBe(1);
    // With no speed to average with (a stale one), the batch's own.
    expect(updatedSpeed(undefined, 8, 3 * batchMs(1, 8))).toBeCloseTo(3);
    expect(updatedSpeed(1, 3, NaN)).toBe(1);
  });

  test('a batch that has run past a query’s wait makes the model at least that slow', () => {
    expect(speedAtLeast(1, 1, 163)).toBeCloseTo(10);
    expect(speedAtLeast(12, 1, 163)).toBe(12);
    expect(speedAtLeast(1, 0, 163)).toBe(1);
  });

  test('a batch running late is expected to need as long again', () => {
    expect(freeAt(100, undefined)).toBe(100);
    expect(freeAt(100, 130)).toBe(130);
    expect(freeAt(100, 60)).toBe(140);
  });

  test('a query is admitted when the batch in flight and one batch with those waiting are planned to end before its deadline', () => {
    const waiting = Array.from({ length: 10 }, () => ({ texts: 1, deadline: 1_000 }));
    // In flight until 50; then 11 texts: 12 + 47.3 ms; planned at twice the 109.3 ms.
    expect(admits({ now: 0, inFlightEnd: 50, waiting, own: 1, deadline: 220, speed: 1 })).toBe(true);
    expect(admits({ now: 0, inFlightEnd: 50, waiting, own: 1, deadline: 215, speed: 1 })).toBe(false);
    // On a machine twice as slow.
    expect(admits({ now: 0, inFlightEnd: 50, waiting, own: 1, deadline: 300, speed: 2 })).toBe(false);
  });
});
