import { ContextData } from '../../src/condense/knowledge/contextData';
import { archiveNeeded, CONTEXT_SHOWN, renderArchiveBody, renderContextBody } from '../../src/condense/knowledge/contextRender';

/**
 * A channel past every bound of CONTEXT.md: what CONTEXT.md keeps, the notes that point to the
 * archive, and CONTEXT.archive.md line by line (the mutation run showed the archive and the notes
 * were reached by no in-process test: the example channel never overflows a section).
 */
const day = (i: number) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10);
const LINK = '[CONTEXT.archive.md](CONTEXT.archive.md)';

function decision(i: number, extra: Record<string, string> = {}) {
  return {
    id: `d-${String(i).padStart(3, '0')}`,
    kind: 'decision' as const,
    topic: `Topic ${i}`,
    text: `decision ${i}`,
    date: day(i),
    ledgerKey: `k${i}`,
    ...extra,
  };
}

/** 23 decisions in force, 12 replaced ones, 21 constraints, 22 open action items. */
function overflowing(): ContextData {
  const current = Array.from({ length: 23 }, (_, i) => decision(100 + i, { file: `${day(100 + i)}-topic-${i}.md` }));
  // Replaced ones, each by a decision in force: 12, of which CONTEXT.md shows the newest 10.
  const replaced = Array.from({ length: 12 }, (_, i) => decision(i, { supersededBy: current[i]!.id, supersededDate: day(100 + i) }));
  const constraints = Array.from({ length: 21 }, (_, i) => ({ text: `constraint ${i}`, date: day(100 + i), decisionId: current[i]!.id }));
  const actions = Array.from({ length: 22 }, (_, i) => ({
    id: `a-${i}`,
    text: `action ${i}`,
    decisionId: current[0]!.id,
    opened: day(100 + i),
    status: 'open' as const,
  }));
  return { version: 1, decisions: [...replaced, ...current], constraints, actions };
}

/** The non-blank lines under a `## ` heading, up to the next one. */
function section(doc: string, heading: string): string[] {
  const lines = doc.split('\n');
  const at = lines.indexOf(`## ${heading}`);
  if (at < 0) throw new Error(`no section ${heading} in:\n${doc}`);
  const end = lines.findIndex((l, i) => i > at && l.startsWith('## '));
  return lines.slice(at + 1, end < 0 ? undefined : end).filter((l) => l.trim() !== '');
}

describe('CONTEXT.md and CONTEXT.archive.md for a channel past every bound', () => {
  const data = ContextData.parse(overflowing());
  const main = renderContextBody(data);
  const archive = renderArchiveBody(data);

  it('CONTEXT.md keeps the newest of each list and says how many older ones the archive holds', () => {
    const decisions = section(main, 'Key Decisions');
    expect(decisions).toHaveLength(CONTEXT_SHOWN.decisions + 1);
    expect(decisions[0]).toBe(`1. [${day(122)}] **Topic 122:** decision 122 ([condensation](condensations/${day(122)}-topic-22.md)) — proposed`);
    expect(decisions[19]).toMatch(/^20\. \[\d{4}-\d\d-\d\d\] \*\*Topic 103:\*\* decision 103 /);
    expect(decisions[20]).toBe(`_3 older decisions still in force are listed in ${LINK}._`);
    // Constraints and action items are oldest first: the newest 20 are the last 20.
    const constraints = section(main, 'Active Constraints');
    expect(constraints.slice(0, 2)).toEqual(['- constraint 1', '- constraint 2']);
    expect(constraints[20]).toBe(`_1 older constraints still in force is listed in ${LINK}._`);
    const actions = section(main, 'Open Action Items');
    expect(actions[0]).toContain('action 2');
    expect(actions.at(-1)).toBe(`_2 older open action items are listed in ${LINK}._`);
    const superseded = section(main, 'Superseded Decisions');
    expect(superseded).toHaveLength(11);
    expect(superseded[0]).toBe(`- ~~[${day(11)}] Topic 11: decision 11~~ → Replaced by decision 111 (${day(111)})`);
    expect(superseded[10]).toBe(`_2 older superseded decisions are listed in ${LINK}._`);
  });

  it('the archive lists exactly what CONTEXT.md left out, numbered on from where CONTEXT.md stopped', () => {
    expect(archive.split('\n')[0]).toBe('# Channel Context — Archive');
    expect(archive).toContain(
      `CONTEXT.md lists the newest ${CONTEXT_SHOWN.decisions} key decisions, ${CONTEXT_SHOWN.constraints} active constraints, ${CONTEXT_SHOWN.actions} open action items and ${CONTEXT_SHOWN.superseded} superseded decisions`,
    );
    expect(section(archive, 'Older Key Decisions (still in force)')).toEqual([
      `21. [${day(102)}] **Topic 102:** decision 102 ([condensation](condensations/${day(102)}-topic-2.md)) — proposed`,
      `22. [${day(101)}] **Topic 101:** decision 101 ([condensation](condensations/${day(101)}-topic-1.md)) — proposed`,
      `23. [${day(100)}] **Topic 100:** decision 100 ([condensation](condensations/${day(100)}-topic-0.md)) — proposed`,
    ]);
    expect(section(archive, 'Older Active Constraints')).toEqual(['- constraint 0']);
    const actions = section(archive, 'Older Open Action Items');
    expect(actions).toHaveLength(2);
    expect(actions[0]).toMatch(/^- .*action 0\b/);
    expect(actions[1]).toMatch(/^- .*action 1\b/);
    expect(section(archive, 'Older Superseded Decisions')).toEqual([
      `- ~~[${day(1)}] Topic 1: decision 1~~ → Replaced by decision 101 (${day(101)})`,
      `- ~~[${day(0)}] Topic 0: decision 0~~ → Replaced by decision 100 (${day(100)})`,
    ]);
    // Nothing is in both files.
    for (const line of archive.split('\n').filter((l) => l.startsWith('- ') || /^\d+\. /.test(l))) expect(main).not.toContain(line.replace(/^\d+\. /, ''));
  });

  it('an archive section with nothing older says so; the archive is needed from the first item past a bound', () => {
    const justDecisions = ContextData.parse({ version: 1, decisions: Array.from({ length: 21 }, (_, i) => decision(i)), constraints: [] });
    const a = renderArchiveBody(justDecisions);
    expect(section(a, 'Older Key Decisions (still in force)')).toEqual([`21. [${day(0)}] **Topic 0:** decision 0 — proposed`]);
    for (const s of ['Older Active Constraints', 'Older Open Action Items', 'Older Superseded Decisions']) expect(section(a, s)).toEqual(['_None._']);
    expect(section(renderContextBody(justDecisions), 'Key Decisions').at(-1)).toBe(`_1 older decisions still in force is listed in ${LINK}._`);
    expect(archiveNeeded(justDecisions)).toBe(true);
    const atBound = ContextData.parse({ version: 1, decisions: Array.from({ length: CONTEXT_SHOWN.decisions }, (_, i) => decision(i)), constraints: [] });
    expect(archiveNeeded(atBound)).toBe(false);
    expect(section(renderContextBody(atBound), 'Key Decisions')).toHaveLength(CONTEXT_SHOWN.decisions);
    expect(archiveNeeded(ContextData.parse(overflowing()))).toBe(true);
  });
});
