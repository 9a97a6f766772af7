import fc from 'fast-check';
import { ContextData, currentDecisions } from '../../src/condense/knowledge/contextData';
import { decisionsAsOf, parseDay } from '../../src/condense/knowledge/decisionsAsOf';

/**
 * The decisions in force at the end of a day: on random chains of replacements, the last day gives
 * exactly what CONTEXT.md lists now, and on any day each decision made by then is either in force or
 * replaced by then, never both.
 */
const day = (n: number): string => new Date(Date.UTC(2025, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);

const chain = fc
  .array(fc.record({ gap: fc.nat(40), replaces: fc.option(fc.nat(), { nil: undefined }), none: fc.boolean() }), { minLength: 1, maxLength: 12 })
  .map((steps): ContextData => {
    let t = 0;
    const decisions: ContextData['decisions'] = [];
    steps.forEach((s, i) => {
      t += s.gap;
      const id = `d-${String(i).padStart(10, '0')}`;
      const open = decisions.filter((d) => d.kind === 'decision' && !d.supersededBy);
      if (!s.none && s.replaces !== undefined && open.length) {
        const old = open[s.replaces % open.length]!;
        old.supersededBy = id;
        old.supersededDate = day(t);
      }
      decisions.push({ id, kind: s.none ? 'none' : 'decision', topic: `t${i}`, text: `x${i}`, date: day(t), ledgerKey: id.slice(2) });
    });
    return { version: 1, decisions, constraints: [] };
  });

describe('decisionsAsOf', () => {
  it('after the last date: exactly the decisions in force now', () => {
    fc.assert(
      fc.property(chain, (data) => {
        expect(decisionsAsOf(data, '2999-01-01').inForce.map((d) => d.id)).toEqual(currentDecisions(data).map((d) => d.id));
      }),
    );
  });

  it('on any day: each decision made by then is in force or replaced by then, and none made later is listed', () => {
    fc.assert(
      fc.property(chain, fc.nat(500), (data, n) => {
        const at = day(n);
        const then = decisionsAsOf(data, at);
        const made = data.decisions.filter((d) => d.kind === 'decision' && d.date <= at).map((d) => d.id);
        const listed = [...then.inForce.map((d) => d.id), ...then.superseded.map((s) => s.decision.id)];
        expect([...listed].sort()).toEqual([...made].sort());
        for (const d of then.inForce) expect(d.supersededDate === undefined || d.supersededDate > at).toBe(true);
        for (const s of then.superseded) expect(s.on <= at).toBe(true);
      }),
    );
  });

  it('a decision known replaced without a date is replaced from the day of the one that replaced it', () => {
    const data: ContextData = {
      version: 1,
      decisions: [
        { id: 'd-old', kind: 'decision', topic: 'a', text: 'old', date: '2025-01-01', supersededBy: 'd-new', ledgerKey: 'o' },
        { id: 'd-new', kind: 'decision', topic: 'a', text: 'new', date: '2025-02-01', ledgerKey: 'n' },
      ],
      constraints: [],
    };
    expect(decisionsAsOf(data, '2025-01-31').inForce.map((d) => d.id)).toEqual(['d-old']);
    expect(decisionsAsOf(data, '2025-02-01').superseded.map((s) => [s.decision.id, s.on])).toEqual([['d-old', '2025-02-01']]);
  });

  it('parseDay takes a real calendar day only', () => {
    expect(parseDay('2024-02-29')).toEqual({ day: '2024-02-29' });
    for (const bad of ['2025-02-29', '2025-13-01', '25-01-01', '2025-01-01T00:00Z', 'yesterday', '']) expect(parseDay(bad)).toHaveProperty('problem');
  });
});
