import { autoGate } from '../../src/condense/saga/gate';
import { draftMaker, EMPTY_CONTEXT, folder, msgs } from './helpers';

const EMPTY = EMPTY_CONTEXT;
const draft = draftMaker({ topic: 'Storage', decision: 'use Postgres' });
const fold = folder(draft);

describe('folding a condensation into the structured context', () => {
  it('applying the same condensation twice gives the same data, and a re-fold without a file keeps the file', () => {
    const once = fold(EMPTY, { file: 'a.md', draft: draft({ constraints: ['under 50 ms'] }) });
    expect(fold(once, { file: 'a.md', draft: draft({ constraints: ['under 50 ms'] }) })).toEqual(once);
    expect(once.decisions).toEqual([
      {
        id: 'd-1',
        kind: 'decision',
        topic: 'Storage',
        text: 'use Postgres',
        date: '2026-11-10',
        file: 'a.md',
        ledgerKey: 'k1',
        threadId: undefined,
        status: 'proposed',
      },
    ]);
    const again = fold(once, { draft: draft({ decision: 'use Postgres 16' }) });
    expect(again.decisions).toHaveLength(1);
    expect(again.decisions[0]).toMatchObject({ text: 'use Postgres 16', file: 'a.md' });
    // The input is not changed.
    expect(once.decisions[0].text).toBe('use Postgres');
  });

  it('"none" is recorded as a no-decision entry', () => {
    expect(fold(EMPTY, { draft: draft({ decision: 'none' }) }).decisions[0].kind).toBe('none');
  });

  it('supersedes only a known, other, not yet replaced decision, and keeps who replaced it first', () => {
    const a = fold(EMPTY, { decisionId: 'd-a', date: '2026-11-01' });
    const b = fold(a, { decisionId: 'd-b', date: '2026-11-05', supersedes: ['d-a', 'd-unknown', 'd-b'] });
    expect(b.decisions.map((d) => [d.id, d.supersededBy, d.supersededDate])).toEqual([
      ['d-a', 'd-b', '2026-11-05'],
      ['d-b', undefined, undefined],
    ]);
    const c = fold(b, { decisionId: 'd-c', date: '2026-11-09', supersedes: ['d-a'] });
    expect(c.decisions.find((d) => d.id === 'd-a')).toMatchObject({ supersededBy: 'd-b', supersededDate: '2026-11-05' });
    // The one named, not the first listed.
    const d = fold(c, { decisionId: 'd-d', date: '2026-11-12', supersedes: ['d-c'] });
    expect(d.decisions.filter((x) => x.supersededBy === 'd-d').map((x) => x.id)).toEqual(['d-c']);
  });

  it("a decision's constraints are added once, whatever their case; another decision may state the same one", () => {
    const one = fold(EMPTY, { draft: draft({ constraints: ['Under 50 ms', 'under 50 MS', 'no root'] }) });
    expect(one.constraints).toEqual([
      { text: 'Under 50 ms', date: '2026-11-10', decisionId: 'd-1' },
      { text: 'no root', date: '2026-11-10', decisionId: 'd-1' },
    ]);
    expect(fold(one, { draft: draft({ constraints: ['UNDER 50 ms'] }) }).constraints).toHaveLength(2);
    expect(fold(one, { decisionId: 'd-2', draft: draft({ constraints: ['under 50 ms'] }) }).constraints.map((c) => c.decisionId)).toEqual([
      'd-1',
      'd-1',
      'd-2',
    ]);
  });

  it('the current state moves forward only: an older discussion condensed late, or one without a state, keeps it', () => {
    const now = fold(EMPTY, { date: '2026-11-10', draft: draft({ currentState: 'in review' }) });
    expect(now.currentState).toEqual({ text: 'in review', date: '2026-11-10' });
    expect(fold(now, { decisionId: 'd-old', date: '2026-11-01', draft: draft({ currentState: 'drafting' }) }).currentState).toEqual(now.currentState);
    expect(fold(now, { decisionId: 'd-2', date: '2026-11-10', draft: draft({ currentState: 'shipped' }) }).currentState).toEqual({
      text: 'shipped',
      date: '2026-11-10',
    });
    expect(fold(now, { decisionId: 'd-3', date: '2026-11-20', draft: draft({ currentState: '' }) }).currentState).toEqual(now.currentState);
    expect(fold(EMPTY, { draft: draft({ currentState: '' }) }).currentState).toBeUndefined();
  });
});

describe('the automatic gate says why it holds back', () => {
  const first = new Date('2026-11-01T00:00:00Z');
  const two = (n: number) => msgs(Array.from({ length: n }, (_, i) => [i % 2 ? 'bea' : 'al', String(i)] as [string, string]));

  it('each reason in its own words, with singular and plural', () => {
    expect(autoGate({ humanSinceLast: two(6) })).toEqual({ ok: false, reason: 'the bot has no record of when it first ran in this channel' });
    expect(autoGate({ humanSinceLast: two(6), botFirstRanAt: first, archivedAt: new Date(first.getTime() - 1) })).toEqual({
      ok: false,
      reason: 'archived before the bot first ran in this channel',
    });
    expect(autoGate({ humanSinceLast: two(1), botFirstRanAt: first })).toEqual({
      ok: false,
      reason: 'only 1 human message since the last condensation (needs 6)',
    });
    expect(autoGate({ humanSinceLast: two(0), botFirstRanAt: first })).toEqual({
      ok: false,
      reason: 'only 0 human messages since the last condensation (needs 6)',
    });
    expect(autoGate({ humanSinceLast: two(6), botFirstRanAt: first, minPeople: 3 })).toEqual({ ok: false, reason: 'only 2 people took part (needs 3)' });
  });

  it('archived at the very moment the bot first ran counts; the thresholds can be set', () => {
    expect(autoGate({ humanSinceLast: two(6), botFirstRanAt: first, archivedAt: first })).toEqual({ ok: true });
    expect(autoGate({ humanSinceLast: two(3), botFirstRanAt: first, minMessages: 3 })).toEqual({ ok: true });
    expect(autoGate({ humanSinceLast: two(5), botFirstRanAt: first })).toMatchObject({ ok: false });
  });
});
