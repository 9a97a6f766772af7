import { applyMemoryOps } from '../../src/memory/memoryOps';
import { sectionText, SESSION_SECTIONS } from '../../src/memory/grammar';
import { formatEntry, parseMemory, parseMemoryLine } from '../../src/memory/entries';
import { entryBody, lineEntries } from '../../src/memory/markdownBlocks';
import { makeTombstone, matchesTombstone } from '../../src/memory/tombstones';

const now = new Date('2026-11-21T10:00:00Z');
let n = 0;
const random = () => `a${(n++).toString(16).padStart(5, '0')}`;

describe('MEMORY.md entry format', () => {
  it('parses back what it writes', () => {
    const line = formatEntry({ id: 'm-1a2b3c', text: 'Use pnpm for installs', source: 'discord #build', date: '2026-11-20' });
    expect(line).toBe('- [m-1a2b3c] Use pnpm for installs [from: discord #build, 2026-11-20]');
    const p = parseMemoryLine(line);
    expect(p).toMatchObject({ kind: 'entry', id: 'm-1a2b3c', text: 'Use pnpm for installs', source: 'discord #build', date: '2026-11-20', superseded: false });
  });

  it('reads superseded lines as superseded, with their replacement', () => {
    const p = parseMemoryLine('- ~~[m-aaaaaa] Deploy on Fridays~~ → [m-bbbbbb] (2026-11-02) [from: chat, 2026-10-01]');
    expect(p).toMatchObject({ superseded: true, id: 'm-aaaaaa', supersededBy: 'm-bbbbbb', text: 'Deploy on Fridays' });
  });

  it('treats every non-heading line as an entry, bullet or not', () => {
    const lines = parseMemory('# Memory\n\n- first\nplain line under a bullet\n  * nested\n<!-- guidance -->\n');
    expect(lines.filter((l) => l.kind === 'entry').map((l) => l.text)).toEqual(['first', 'plain line under a bullet', 'nested']);
  });
});

describe('applyMemoryOps', () => {
  const base = '# Channel Memory\n\n## Durable Facts\n\n- We deploy with **GitHub Actions**, not Jenkins\nhand note without bullet\n';

  it('two statements of one fact superseded by the same new text: both are struck, in favour of one new entry', () => {
    const mem =
      '# Channel Memory\n\n## Durable Facts\n\n- [m-aaaa01] The atlas timeout is 2 s [from: t, 2026-10-01]\n- [m-aaaa02] The atlas timeout is 5 s [from: t, 2026-11-01]\n';
    const text = 'The atlas timeout is 8 s';
    const r = applyMemoryOps(
      mem,
      [
        { op: 'supersede', id: 'm-aaaa01', text, source: 's' },
        { op: 'supersede', id: 'm-aaaa02', text, source: 's' },
      ],
      { now, tombstones: [], random },
    );
    const entries = parseMemory(r.text).filter((l) => l.kind === 'entry');
    expect(entries.filter((l) => !l.superseded).map((l) => l.text)).toEqual([text]);
    const newId = entries.find((l) => !l.superseded)?.id;
    expect(r.applied.map((a) => a.id)).toEqual([newId, newId]);
    expect(r.text).toContain(`~~[m-aaaa02] The atlas timeout is 5 s~~ → [${newId}]`);
  });

  it('an add that repeats an entry with a word added or dropped is skipped; a replaced word or number is a new statement', () => {
    const mem =
      '# Channel Memory\n\n## Durable Facts\n\n- [m-aaaa01] The billing service stores invoices in MySQL [from: t, 2026-11-01]\n- [m-aaaa02] The staging database listens on port 6543 [from: t, 2026-11-01]\n';
    const add = (text: string) => applyMemoryOps(mem, [{ op: 'add', text, source: 's' }], { now, tombstones: [], random });
    expect(add('The billing service still stores invoices in MySQL').skipped.map((x) => x.why)).toEqual(['already in MEMORY.md']);
    expect(add('The billing service stores invoices in Postgres').applied).toHaveLength(1);
    expect(add('The staging database listens on port 6544').applied).toHaveLength(1);
    expect(add('The staging database listens on port 6543 and 6544').applied).toHaveLength(1);
  });

  it('gives hand-written lines an id and keeps their words and order', () => {
    const r = applyMemoryOps(base, [{ op: 'add', text: 'Staging lives at staging.example.org', source: 'test' }], { now, tombstones: [], random });
    const entries = parseMemory(r.text).filter((l) => l.kind === 'entry');
    expect(entries.map((e) => e.text)).toEqual([
      'We deploy with **GitHub Actions**, not Jenkins',
      'hand note without bullet',
      'Staging lives at staging.example.org',
    ]);
    expect(entries.every((e) => e.id)).toBe(true);
    expect(r.text).toContain('[from: test, 2026-11-21]');
  });

  it('leaves what is not a statement alone: comments, code, tables, rules, empty bullets; keeps indents', () => {
    const hand = [
      '# Channel Memory',
      '',
      '<!-- notes for people:',
      'the deploy key is rotated by ops',
      '-->',
      '```sh',
      'npm run deploy -- --prod',
      '```',
      '| env | url |',
      '|-----|-----|',
      '| prod | example.org |',
      '---',
      '- ',
      '-',
      '- Deploys go through the release branch',
      '  indented detail under it',
      '',
    ].join('\n');
    const r = applyMemoryOps(hand, [], { now, tombstones: [], random });
    const out = r.text.split('\n');
    // Only the two statements got an id; every other line is byte-for-byte what the person wrote.
    expect(r.idsAssigned).toBe(2);
    expect(out.filter((l) => /\[m-[a-z0-9]+\]/.test(l))).toEqual([
      expect.stringMatching(/^- \[m-[a-z0-9]+\] Deploys go through the release branch$/),
      expect.stringMatching(/^ {2}- \[m-[a-z0-9]+\] indented detail under it$/),
    ]);
    const untouched = hand.split('\n').filter((l) => !/Deploys go|indented detail/.test(l));
    for (const l of untouched) expect(out).toContain(l);
    // Recall reads the same file the same way.
    expect(lineEntries(r.text).map((b) => entryBody(b.text))).toEqual(['Deploys go through the release branch', 'indented detail under it']);
  });

  it('never writes a new entry into a code fence or an unclosed comment', () => {
    const withFence = [
      '# Channel Memory',
      '',
      '## Durable Facts',
      '',
      '- Deploys use the script below',
      '```sh',
      '# deploy',
      './deploy.sh --prod',
      '```',
      '',
    ].join('\n');
    const r1 = applyMemoryOps(withFence, [{ op: 'add', text: 'Staging lives at staging.example.org', source: 's' }], { now, tombstones: [], random });
    expect(r1.text.split('\n').slice(5, 9)).toEqual(['```sh', '# deploy', './deploy.sh --prod', '```']);
    const again = applyMemoryOps(r1.text, [{ op: 'add', text: 'Staging lives at staging.example.org', source: 's' }], { now, tombstones: [], random });
    expect(again.applied).toEqual([]);
    expect(
      parseMemory(r1.text)
        .filter((l) => l.kind === 'entry')
        .map((l) => l.text),
    ).toContain('Staging lives at staging.example.org');

    const unclosed = [
      '# Channel Memory',
      '',
      '## Durable Facts',
      '',
      '- Deploys go through CI',
      '',
      '<!-- draft notes, not finished',
      'maybe move to fly.io',
    ].join('\n');
    const r2 = applyMemoryOps(unclosed, [{ op: 'add', text: 'Staging lives at staging.example.org', source: 's' }], { now, tombstones: [], random });
    const entries = parseMemory(r2.text)
      .filter((l) => l.kind === 'entry')
      .map((l) => l.text);
    expect(entries).toEqual(['Deploys go through CI', 'Staging lives at staging.example.org']);
    expect(r2.text.trimEnd().endsWith('<!-- draft notes, not finished\nmaybe move to fly.io')).toBe(true);
    const r3 = applyMemoryOps(unclosed, [{ op: 'add', text: 'Backups run nightly at 02:00', source: 's', section: 'Ops' }], { now, tombstones: [], random });
    expect(
      parseMemory(r3.text)
        .filter((l) => l.kind === 'entry')
        .map((l) => l.text),
    ).toContain('Backups run nightly at 02:00');
  });

  it('supersedes: the old line is struck through and points at the new one', () => {
    const first = applyMemoryOps(base, [{ op: 'add', text: 'Release every Tuesday', source: 's' }], { now, tombstones: [], random });
    const id = first.applied[0].id;
    const r = applyMemoryOps(first.text, [{ op: 'supersede', id, text: 'Release every Thursday', source: 's2' }], { now, tombstones: [], random });
    const lines = parseMemory(r.text).filter((l) => l.kind === 'entry');
    const old = lines.find((l) => l.id === id)!;
    expect(old.superseded).toBe(true);
    expect(old.supersededBy).toBe(r.applied[0].id);
    expect(lines.filter((l) => !l.superseded).map((l) => l.text)).toContain('Release every Thursday');
  });

  it('forgets a line and refuses bad ids with a reason', () => {
    const first = applyMemoryOps(base, [], { now, tombstones: [], random });
    const id = parseMemory(first.text).find((l) => l.text.startsWith('hand note'))!.id!;
    const r = applyMemoryOps(
      first.text,
      [
        { op: 'forget', id },
        { op: 'forget', id: '../etc' },
        { op: 'forget', id: 'm-ffffff' },
      ],
      { now, tombstones: [], random },
    );
    expect(r.text).not.toContain('hand note');
    expect(r.forgotten).toEqual([{ id, text: 'hand note without bullet' }]);
    expect(r.skipped.map((s) => s.why)).toEqual([expect.stringContaining('not an entry id'), expect.stringContaining('no entry m-ffffff')]);
  });

  it('does not learn a forgotten fact again, even reworded, unless a person asks', () => {
    const stone = makeTombstone('The staging database password rotates every Monday morning', now);
    const reworded = 'staging database password rotates every Monday morning at nine';
    expect(matchesTombstone(reworded, [stone])).toBeDefined();
    expect(matchesTombstone('We chose Postgres over MySQL for the billing service', [stone])).toBeUndefined();
    const auto = applyMemoryOps(base, [{ op: 'add', text: reworded, source: 'upkeep' }], { now, tombstones: [stone], random });
    expect(auto.applied).toHaveLength(0);
    expect(auto.skipped[0].why).toMatch(/forgotten/);
    const asked = applyMemoryOps(base, [{ op: 'add', text: reworded, source: 'alice', explicit: true }], { now, tombstones: [stone], random });
    expect(asked.applied).toHaveLength(1);
  });

  it('never writes a secret', () => {
    const r = applyMemoryOps(
      base,
      [
        { op: 'add', text: 'The bot token is MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs', source: 's' },
        { op: 'add', text: 'Use key sk-ant-api03-abcdefghijklmnopqrstuvwxyz for prod', source: 's' },
      ],
      { now, tombstones: [], random },
    );
    expect(r.applied).toHaveLength(0);
    expect(r.text).not.toMatch(/sk-ant|MTk4/);
  });
});

describe('one grammar for the memory files', () => {
  it('the parser, the writer and recall agree on ids of 4 to 32 characters', () => {
    const long = 'm-' + 'a1'.repeat(12); // 24 characters: once accepted by recall, not by the parser
    const text = `# Channel Memory\n\n- [${long}] A hand-made id [from: me, 2026-11-01]\n`;
    const line = parseMemory(text).find((l) => l.kind === 'entry')!;
    expect(line.id).toBe(long);
    expect(lineEntries(text).map((b) => b.body)).toEqual(['A hand-made id']);
    // The writer keeps it (no second id is prefixed on the next write).
    expect(applyMemoryOps(text, [], { now, tombstones: [], random }).text).toBe(text);
  });

  it('SESSION.md sections read back what the refresh writes', () => {
    const session = '# Session\n\n## Goal\n\nShip the importer\n\n## Current State\n\nMigrations written\nTests green\n\n## Next Steps\n\n- deploy\n';
    expect(sectionText(session, SESSION_SECTIONS.goal)).toBe('Ship the importer');
    expect(sectionText(session, SESSION_SECTIONS.state)).toBe('Migrations written\nTests green');
    expect(sectionText(session, SESSION_SECTIONS.next)).toBe('- deploy');
    expect(sectionText(session, SESSION_SECTIONS.questions)).toBe('');
  });
});
