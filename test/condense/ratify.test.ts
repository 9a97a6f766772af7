import fc from 'fast-check';
import type { ContextData } from '../../src/condense/knowledge/contextData';
import { confirmDecision, decisionStatus, Member, reopenDecision, statusAsOf, statusWords } from '../../src/condense/knowledge/ratify';
import { draftMaker, EMPTY_CONTEXT, folder } from './helpers';

/**
 * Ratifying decisions (issue 43 §1): the pure operations the Discord buttons and the store's writers
 * carry out, checked against a model of the rules on random click sequences.
 */
const draft = draftMaker({ topic: 'Storage', decision: 'use Postgres' });
const fold = folder(draft);
const AT = new Date('2026-11-12T09:30:00Z');
const member = (n: number, roles: string[] = []): Member => ({ id: `u${n}`, name: `Member ${n}`, roles });

/** Two decisions in force (d-a, d-b) and one replaced (d-old by d-b). */
function channel(): ContextData {
  const old = fold(EMPTY_CONTEXT, { decisionId: 'd-old', ledgerKey: 'k0', date: '2026-11-01' });
  const a = fold(old, { decisionId: 'd-a', ledgerKey: 'ka', date: '2026-11-05', draft: draft({ topic: 'Queue', decision: 'use NATS' }) });
  return fold(a, { decisionId: 'd-b', ledgerKey: 'kb', date: '2026-11-10', supersedes: ['d-old'] });
}

describe('a decision the Secretary records, and what members say of it', () => {
  it('is proposed when folded; the decision it replaces is superseded; a resumed fold keeps what members said', () => {
    const data = channel();
    expect(data.decisions.map((d) => [d.id, d.status])).toEqual([
      ['d-old', 'superseded'],
      ['d-a', 'proposed'],
      ['d-b', 'proposed'],
    ]);
    const r = confirmDecision(data, 'd-b', member(1), AT);
    if (!r.ok) throw new Error(r.why);
    const resumed = fold(r.data, { decisionId: 'd-b', ledgerKey: 'kb', date: '2026-11-10', supersedes: ['d-old'] });
    expect(resumed.decisions.find((d) => d.id === 'd-b')).toMatchObject({ status: 'ratified', ratifiedBy: [{ id: 'u1', name: 'Member 1' }] });
    // A discussion without a conclusion is no decision: it has no status.
    expect(fold(EMPTY_CONTEXT, { draft: draft({ decision: 'none' }) }).decisions[0].status).toBeUndefined();
  });

  it('reads files written before ratification as proposed, or superseded when something replaced them', () => {
    const legacy: ContextData = {
      version: 1,
      constraints: [],
      decisions: [
        { id: 'd-1', kind: 'decision', topic: 't', text: 'x', date: '2025-01-01', ledgerKey: 'k1', supersededBy: 'd-2' },
        { id: 'd-2', kind: 'decision', topic: 't', text: 'y', date: '2025-02-01', ledgerKey: 'k2' },
      ],
    };
    expect(legacy.decisions.map(decisionStatus)).toEqual(['superseded', 'proposed']);
    // A status set by hand, without who or when, counts from the decision's date and names nobody.
    const byHand = { ...legacy.decisions[1], status: 'disputed' as const };
    expect(statusAsOf(byHand)).toEqual({ status: 'disputed', confirmations: [] });
    expect(statusWords(statusAsOf(byHand))).toBe('disputed');
    expect(statusAsOf({ ...byHand, status: 'ratified' }, '2025-01-31').status).toBe('proposed');
    expect(statusWords(statusAsOf({ ...byHand, status: 'ratified' }))).toBe('ratified by a member (2025-02-01)');
    expect(statusWords(statusAsOf(legacy.decisions[1]))).toBe('proposed');
  });

  it('Confirm: ratified by who and when; the same member twice is refused; another member adds to the record', () => {
    const r = confirmDecision(channel(), 'd-a', { id: '42', name: '  Ana\n Lopez ', roles: [] }, AT);
    if (!r.ok) throw new Error(r.why);
    expect(r.status).toBe('ratified');
    expect(r.decision).toMatchObject({ status: 'ratified', ratifiedBy: [{ id: '42', name: 'Ana Lopez', at: AT.toISOString() }], ratifiedAt: AT.toISOString() });
    expect(statusWords(statusAsOf(r.decision))).toBe('ratified by Ana Lopez (2026-11-12)');
    expect(confirmDecision(r.data, 'd-a', { id: '42', name: 'Ana', roles: [] }, AT)).toMatchObject({ ok: false, reason: 'already' });
    const later = new Date('2026-11-14T00:00:00Z');
    const again = confirmDecision(r.data, 'd-a', member(7), later);
    if (!again.ok) throw new Error(again.why);
    expect(again.decision.ratifiedAt).toBe(AT.toISOString());
    expect(again.decision.ratifiedBy?.map((c) => c.id)).toEqual(['42', 'u7']);
  });

  it('refuses with one line: an unknown id, a replaced decision, a member without the role, a disputed decision', () => {
    const data = channel();
    expect(confirmDecision(data, 'd-nope', member(1), AT)).toMatchObject({ ok: false, reason: 'unknown' });
    expect(confirmDecision(data, 'd-old', member(1), AT)).toMatchObject({ ok: false, reason: 'superseded', why: expect.stringContaining('d-b') });
    expect(reopenDecision(data, 'd-old', member(1), AT)).toMatchObject({ ok: false, reason: 'superseded' });
    const roleOnly = { minConfirmations: 1, role: '900' };
    expect(confirmDecision(data, 'd-a', member(1, ['100']), AT, roleOnly)).toMatchObject({
      ok: false,
      reason: 'role',
      why: expect.stringContaining('<@&900>'),
    });
    expect(reopenDecision(data, 'd-a', member(1), AT, roleOnly)).toMatchObject({ ok: false, reason: 'role' });
    expect(confirmDecision(data, 'd-a', member(1, ['100', '900']), AT, roleOnly)).toMatchObject({ ok: true, status: 'ratified' });
    const reopened = reopenDecision(data, 'd-a', member(2), AT);
    if (!reopened.ok) throw new Error(reopened.why);
    expect(confirmDecision(reopened.data, 'd-a', member(3), AT)).toMatchObject({ ok: false, reason: 'disputed', why: expect.stringContaining('Member 2') });
    expect(reopenDecision(reopened.data, 'd-a', member(3), AT)).toMatchObject({ ok: false, reason: 'disputed' });
    for (const r of [confirmDecision(data, 'd-nope', member(1), AT), reopenDecision(reopened.data, 'd-a', member(3), AT)]) {
      if (r.ok) throw new Error('refused above');
      expect(r.why).not.toMatch(/\n/);
    }
  });

  it('Reopen: disputed, still in force, until a new condensation replaces it', () => {
    const r = confirmDecision(channel(), 'd-a', member(1), AT);
    if (!r.ok) throw new Error(r.why);
    const reopened = reopenDecision(r.data, 'd-a', member(2), new Date('2026-11-13T08:00:00Z'));
    if (!reopened.ok) throw new Error(reopened.why);
    expect(reopened.decision).toMatchObject({ status: 'disputed', disputedBy: { id: 'u2', name: 'Member 2' }, ratifiedBy: [{ id: 'u1' }] });
    expect(statusWords(statusAsOf(reopened.decision))).toBe('disputed: reopened by Member 2 (2026-11-13)');
    // As it stood before the click, and on the day of each.
    expect(statusAsOf(reopened.decision, '2026-11-11').status).toBe('proposed');
    expect(statusAsOf(reopened.decision, '2026-11-12').status).toBe('ratified');
    expect(statusAsOf(reopened.decision, '2026-11-13').status).toBe('disputed');
    const settled = fold(reopened.data, { decisionId: 'd-new', ledgerKey: 'kn', date: '2026-11-15', supersedes: ['d-a'] });
    expect(settled.decisions.map((d) => [d.id, decisionStatus(d)])).toEqual([
      ['d-old', 'superseded'],
      ['d-a', 'superseded'],
      ['d-b', 'proposed'],
      ['d-new', 'proposed'],
    ]);
  });

  it('on random click sequences, matches the rules: ratified once minConfirmations distinct members confirmed, never while disputed', () => {
    const click = fc.record({ op: fc.constantFrom('confirm', 'reopen'), who: fc.integer({ min: 0, max: 4 }), target: fc.constantFrom('d-a', 'd-b', 'd-old') });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(click, { maxLength: 25 }), (min, clicks) => {
        let data = channel();
        const before = structuredClone(data);
        const model = new Map([
          ['d-a', { confirmed: [] as string[], disputed: false, ratified: false }],
          ['d-b', { confirmed: [] as string[], disputed: false, ratified: false }],
        ]);
        clicks.forEach((c, i) => {
          const at = new Date(AT.getTime() + i * 3_600_000);
          const prev = data;
          const r =
            c.op === 'confirm'
              ? confirmDecision(data, c.target, member(c.who), at, { minConfirmations: min })
              : reopenDecision(data, c.target, member(c.who), at);
          const m = model.get(c.target);
          if (!m) {
            expect(r).toMatchObject({ ok: false, reason: 'superseded' });
            return;
          }
          const who = `u${c.who}`;
          const allowed = c.op === 'confirm' ? !m.disputed && !m.confirmed.includes(who) : !m.disputed;
          expect(r.ok).toBe(allowed);
          if (!r.ok) return;
          if (c.op === 'confirm') m.confirmed.push(who);
          else m.disputed = true;
          m.ratified = m.ratified || m.confirmed.length >= min;
          data = r.data;
          // Only the decision clicked changes; the state given is never changed.
          expect(data.decisions.filter((d) => d.id !== c.target)).toEqual(prev.decisions.filter((d) => d.id !== c.target));
        });
        expect(channel()).toEqual(before);
        for (const [id, m] of model) {
          const d = data.decisions.find((x) => x.id === id)!;
          expect(decisionStatus(d)).toBe(m.disputed ? 'disputed' : m.ratified ? 'ratified' : 'proposed');
          expect((d.ratifiedBy ?? []).map((x) => x.id)).toEqual(m.confirmed);
          // In force whatever members said: nothing replaced it.
          expect(d.supersededBy).toBeUndefined();
        }
        expect(decisionStatus(data.decisions.find((x) => x.id === 'd-old')!)).toBe('superseded');
      }),
      { numRuns: 300 },
    );
  });

  it('a decision needing two confirmations says who confirmed it so far, and counts as ratified from the second', () => {
    const two = { minConfirmations: 2 };
    const one = confirmDecision(channel(), 'd-b', member(1), AT, two);
    if (!one.ok) throw new Error(one.why);
    expect(one.status).toBe('proposed');
    expect(statusWords(statusAsOf(one.decision))).toBe('proposed, confirmed by Member 1');
    expect(confirmDecision(one.data, 'd-b', member(1), AT, two)).toMatchObject({ ok: false, why: 'you already confirmed d-b; it needs 1 more member' });
    const second = confirmDecision(one.data, 'd-b', member(2), new Date('2026-11-20T10:00:00Z'), two);
    if (!second.ok) throw new Error(second.why);
    expect(statusWords(statusAsOf(second.decision))).toBe('ratified by Member 1, Member 2 (2026-11-20)');
    expect(statusAsOf(second.decision, '2026-11-19')).toMatchObject({ status: 'proposed', confirmations: [{ id: 'u1' }] });
  });
});
