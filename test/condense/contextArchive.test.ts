import fs from 'node:fs';
import path from 'node:path';
import { auditChannel } from '../../src/condense/audit/audit';
import { CONTEXT_SHOWN, renderContextBody } from '../../src/condense/knowledge/contextRender';
import { ContextData } from '../../src/condense/knowledge/contextData';
import { writeContextFiles } from '../../src/condense/knowledge/contextFiles';
import { silentLogger } from '../../src/log/logger';
import type { ChannelRef } from '../../src/memory/paths';
import { ChannelStore } from '../../src/memory/store';
import { manualClock } from '../helpers/runtime';
import { makeTmpDir } from '../helpers/tmp';

/** A channel's context.json after `n` condensations: every third one replaced the one before it. */
function contextAfter(n: number): ContextData {
  const data: ContextData = { version: 1, decisions: [], constraints: [], actions: [] };
  for (let i = 0; i < n; i++) {
    const date = new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
    const id = `d-${String(i).padStart(10, '0')}`;
    data.decisions.push({ id, kind: 'decision', topic: `Subject ${i}`, text: `Decision number ${i} holds.`, date, ledgerKey: `${i}`.padStart(16, '0') });
    if (i % 3 === 2) Object.assign(data.decisions[i - 1], { supersededBy: id, supersededDate: date });
    data.constraints.push({ text: `Constraint number ${i} applies`, date, decisionId: id });
    data.actions!.push({ id: `a-${String(i).padStart(6, '0')}`, text: `follow up ${i}`, decisionId: id, opened: date, status: 'open' });
  }
  return data;
}

describe('CONTEXT.md over a year of decisions', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let store: ChannelStore;
  const ref: ChannelRef = { kind: 'local', name: 'proj' };
  beforeEach(() => {
    tmp = makeTmpDir();
    store = new ChannelStore({ root: tmp.dir, clock: manualClock().now, logger: silentLogger() });
  });
  afterEach(() => tmp.cleanup());

  const write = async (prev: ContextData, next: ContextData) => {
    const p = await store.ensureChannel(ref);
    await store.exclusive(p, (tx) => writeContextFiles(tx, prev, next));
    await store.writeState(ref, p.contextData, next);
    return p;
  };

  it('has no archive while every list fits (the layout of a young channel is unchanged)', async () => {
    const p = await write(contextAfter(0), contextAfter(10));
    expect(fs.existsSync(p.contextArchive)).toBe(false);
    expect(fs.readFileSync(p.context, 'utf8')).not.toContain('CONTEXT.archive.md');
  });

  it('keeps CONTEXT.md to the newest of each list and moves the rest, all of it, to CONTEXT.archive.md', async () => {
    const small = contextAfter(300);
    const p = await write(contextAfter(0), small);
    const main = fs.readFileSync(p.context, 'utf8');
    const archive = fs.readFileSync(p.contextArchive, 'utf8');
    const count = (text: string, re: RegExp) => (text.match(re) ?? []).length;
    expect(count(main, /^\d+\. \[/gm)).toBe(CONTEXT_SHOWN.decisions);
    expect(count(main, /^- ~~/gm)).toBe(CONTEXT_SHOWN.superseded);
    expect(count(main, /^- Constraint number/gm)).toBe(CONTEXT_SHOWN.constraints);
    expect(count(main, /^- `a-/gm)).toBe(CONTEXT_SHOWN.actions);
    // The newest decision is first in CONTEXT.md; the archive continues the numbering.
    expect(main).toContain('1. [2026-10-27] **Subject 299:**');
    expect(archive).toMatch(/^21\. \[/m);
    expect(main).toMatch(/_\d+ older decisions still in force are listed in \[CONTEXT\.archive\.md\]\(CONTEXT\.archive\.md\)\._/);
    // Nothing is lost: every decision, constraint and open item is in one of the two files.
    const both = main + archive;
    for (const d of small.decisions) expect(both).toContain(`Decision number ${d.id.slice(2).replace(/^0+(?=\d)/, '')} holds.`);
    const lapsed = new Set(small.decisions.filter((d) => d.supersededBy).map((d) => d.id));
    for (const c of small.constraints.filter((x) => !lapsed.has(x.decisionId))) expect(both).toContain(`${c.text}\n`);
    for (const a of small.actions!) expect(both).toContain(a.id);
    // Bounded: a year-old channel's CONTEXT.md is the size of a 40-decision one.
    const at40 = renderContextBody(contextAfter(40)).length;
    expect(main.length).toBeLessThan(at40 * 1.3);
    expect(await auditChannel({ store, ref, now: new Date('2026-11-01T00:00:00Z') }).then((r) => r.context)).toBeNull();
  });

  it('turns an old, long CONTEXT.md into the short one plus its archive (the shrink is allowed), keeping hand-written lines', async () => {
    const data = contextAfter(120);
    const p = await store.ensureChannel(ref);
    // As a version without the archive wrote it: every current decision in CONTEXT.md, plus a person's line.
    const every = data.decisions
      .filter((d) => !d.supersededBy)
      .reverse()
      .map((d, i) => `${i + 1}. [${d.date}] **${d.topic}:** ${d.text}`);
    fs.writeFileSync(p.context, `# Channel Context\n\n## Key Decisions\n\n${every.join('\n')}\n\nPerson's note: ask Bea before changing Subject 3.\n`);
    expect(fs.statSync(p.context).size).toBeGreaterThan(4_000);
    await store.exclusive(p, (tx) => writeContextFiles(tx, data, data));
    const main = fs.readFileSync(p.context, 'utf8');
    expect(main).toContain("Person's note: ask Bea before changing Subject 3.");
    expect(fs.readFileSync(p.contextArchive, 'utf8')).toContain('Decision number 0 holds.');
  });

  it('keeps a hand edit to the archive under its Notes, and the audit re-renders a stale archive', async () => {
    const data = contextAfter(60);
    const p = await write(contextAfter(0), data);
    fs.appendFileSync(p.contextArchive, '\nA line someone added to the archive.\n');
    const next = contextAfter(61);
    await write(data, next);
    const archive = fs.readFileSync(p.contextArchive, 'utf8');
    expect(archive).toMatch(/## Notes \(hand-written\)\n\nA line someone added to the archive\./);
    // A crash after the archive was written and before context.json: the audit sees it and fixes it.
    const p2 = store.paths(ref);
    fs.writeFileSync(p2.contextArchive, fs.readFileSync(p2.contextArchive, 'utf8').replace('Decision number 0 holds.', 'Decision number 0 holds!'));
    const before = await auditChannel({ store, ref, now: new Date('2026-11-01T00:00:00Z') });
    expect(before.context).toBe('CONTEXT.archive.md was edited by hand since it was rendered');
    const fixed = await auditChannel({ store, ref, now: new Date('2026-11-01T00:00:00Z'), fix: true });
    expect(fixed.contextFixed).toBe(true);
    const after = fs.readFileSync(p2.contextArchive, 'utf8');
    expect(after).toContain('Decision number 0 holds.');
    expect(after).toContain('Decision number 0 holds!');
    expect(path.basename(p2.contextArchive)).toBe('CONTEXT.archive.md');
  });
});
