import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRecall } from '../../src/recall/lexical';
import type { RecallResult } from '../../src/recall/types';
import { stem, tokenize } from '../../src/recall/tokenize';

/** The ranking rules that have a behavioural contract (docs/benchmarks.md, "## Recall"). */

const NOW = new Date('2026-11-21T12:00:00Z');
let tmp: string;

function write(rel: string, text: string): void {
  const p = path.join(tmp, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
}

function recallIn(query: string, extra: { budgetChars?: number; maxItems?: number } = {}): RecallResult {
  return createRecall().recall({ channelDirs: [tmp], query, now: NOW, ...extra });
}

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-recall-rules-'));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('tokenize', () => {
  test('irregular verb forms and plurals meet their base form', () => {
    expect(stem('bought')).toBe(stem('buy'));
    expect(stem('found')).toBe(stem('find'));
    expect(stem('children')).toBe(stem('child'));
    expect(stem('swam')).toBe(stem('swim'));
    // Light verbs (go, get, make, take, come, give) are not mapped: "went" matching every "go" is noise.
    expect(stem('went')).not.toBe(stem('go'));
    expect(tokenize('She bought two tickets')).toEqual(['buy', 'two', 'ticket']);
  });

  test('a word that names a property of every JavaScript object is a word like any other', () => {
    // The irregular forms were a plain object once: "constructor" became Object's constructor function.
    expect(tokenize('the constructor of toString and hasOwnProperty')).toEqual(['constructor', 'tostr', 'hasownproperty']);
    expect(stem('constructor')).toBe('constructor');
  });

  test('ASCII text splits exactly as the Unicode rules split it', () => {
    // A non-ASCII word sends a text down the Unicode path; it adds its own token, nothing else changes.
    const lines = [
      'Decided to move the auth service from Redis to pnpm because the vendor raised prices. [from: #auth-dev, 2026-01-05]',
      'v2.3.1 ships on 2026-12-01; p95<40ms, x86_64 & arm64 (see PR #1234)!',
      "don't re-run the e2e suite on CI-42 -- it's flaky; I'm running it locally",
      'a I 7 x9 __init__ tab\tsep under_score CamelCase UPPER',
    ];
    for (const line of lines) {
      const plain = tokenize(line);
      expect(plain.length).toBeGreaterThan(3);
      expect(tokenize(`${line} café`)).toEqual([...plain, 'café']);
    }
  });
});

/**
 * A project channel: `n` entries about unrelated chores, so specific words are rare and the usual
 * words of the channel are frequent.
 */
function chores(n: number): string[] {
  return Array.from(
    { length: n },
    (_, i) => `- Chore ${i}: the team rotates desk duty number ${i} this sprint. [from: #ops, 2026-10-${String(1 + (i % 28)).padStart(2, '0')}]`,
  );
}

describe('ranking rules', () => {
  test('a common word counts half (weakFactor): two everyday words the channel uses once do not open recall', () => {
    write('MEMORY.md', ['# MEMORY', '', ...chores(120), '- The office money goes to new laptops. [from: #ops, 2026-10-02]'].join('\n'));
    expect(recallIn('office money?')).toEqual({ text: '', items: [], silence: 'words-below-gate' });
    // Two words that are not everyday English, in the same single line, do.
    write('MEMORY.md', ['# MEMORY', '', ...chores(120), '- The grafana dashboards move to kubernetes. [from: #ops, 2026-10-02]'].join('\n'));
    expect(recallIn('grafana kubernetes?').items.map((i) => i.text)).toEqual(['- The grafana dashboards move to kubernetes. [from: #ops, 2026-10-02]']);
  });

  test("a project's own name keeps its weight however often the channel uses it (rareFloor)", () => {
    // "Kestrel" is in half the entries (little specificity by counts); "rollback" in eight.
    const lines = chores(120).map((l, i) => (i % 2 === 0 ? l.replace('desk duty', 'Kestrel desk duty') : l));
    for (let i = 0; i < 7; i++) lines.push(`- Rollback drill ${i} passed for the billing service. [from: #ops, 2026-10-03]`);
    lines.push('- Kestrel rollback takes four minutes with the new script. [from: #ops, 2026-10-04]');
    write('MEMORY.md', ['# MEMORY', '', ...lines].join('\n'));
    const r = recallIn('How quick is a Kestrel rollback?');
    expect(r.items.map((i) => i.text)).toContain('- Kestrel rollback takes four minutes with the new script. [from: #ops, 2026-10-04]');
  });

  test('the default item cap grows with the budget (one item per 125 characters, at least 16); an explicit cap holds', () => {
    const lines: string[] = [];
    for (let i = 0; i < 80; i++) lines.push(`- Ledger job ${i} reconciles invoices nightly. [from: #ops, 2026-10-01]`);
    write('MEMORY.md', lines.join('\n'));
    expect(recallIn('ledger job reconciles invoices', { budgetChars: 2000 }).items.length).toBe(16);
    expect(recallIn('ledger job reconciles invoices', { budgetChars: 1000 }).items.length).toBeLessThanOrEqual(16);
    expect(recallIn('ledger job reconciles invoices', { budgetChars: 4000 }).items.length).toBe(32);
    expect(recallIn('ledger job reconciles invoices', { budgetChars: 4000, maxItems: 5 }).items.length).toBe(5);
  });

  test('session context (sessionBoost): of two equal lines, the one from the day whose HISTORY summary matches ranks first; it admits nothing', () => {
    const memory = [
      '# MEMORY',
      '',
      ...chores(60),
      '',
      '## 2026-03-02',
      '',
      '- The deploy script now retries twice. [from: #ops, 2026-03-02]',
      '- Lunch order moved to Fridays. [from: #ops, 2026-03-02]',
      '',
      '## 2026-03-09',
      '',
      '- The deploy script now retries twice. (again) [from: #ops, 2026-03-09]',
    ].join('\n');
    write('MEMORY.md', memory);
    for (const day of ['2026-03-02', '2026-03-09']) {
      const other = day === '2026-03-02' ? '2026-03-09' : '2026-03-02';
      write(
        'HISTORY.md',
        `# HISTORY\n\n## ${day}\n\nThe team reworked the deploy script after the failed release.\n\n## ${other}\n\nThe team planned the offsite.\n`,
      );
      const items = recallIn('Does the deploy script retry?').items;
      const mem = items.filter((i) => i.file === 'MEMORY.md');
      expect(mem.map((i) => i.text).sort()).toEqual([
        '- The deploy script now retries twice. (again) [from: #ops, 2026-03-09]',
        '- The deploy script now retries twice. [from: #ops, 2026-03-02]',
      ]);
      expect(mem.slice().sort((a, b) => b.score - a.score)[0].text).toContain(`[from: #ops, ${day}]`);
      // The lunch line is from the boosted day but shares no word with the message: never recalled.
      expect(items.some((i) => /Lunch/.test(i.text))).toBe(false);
    }
  });
});

describe('one specific word is evidence, one everyday word is not', () => {
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-rare-'));
    const filler = Array.from(
      { length: 40 },
      (_, i) => `- [m-f${String(i).padStart(5, '0')}] The team reviewed item ${i} during the evening planning session. [from: #dev, 2026-10-0${1 + (i % 9)}]`,
    );
    write(
      'MEMORY.md',
      [
        '# Channel Memory',
        '',
        '- [m-aaaaa1] CI runs on buildkite with two agents. [from: #dev, 2026-11-01]',
        '- [m-aaaaa2] The staging database is db-staging-3 on port 6543. [from: #dev, 2026-11-02]',
        ...filler,
        '',
      ].join('\n'),
    );
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it.each([
    ['buildkite?', 'buildkite'],
    ['what about db-staging-3', 'db-staging-3'],
    ['is 6543 right', 'port 6543'],
  ])('"%s" recalls the one line that uses it', (query, expected) => {
    const r = recallIn(query);
    expect(r.items.map((i) => i.text).join('\n')).toContain(expected);
  });

  it('an everyday word the channel uses is not enough alone', () => {
    expect(recallIn('evening folks').text).toBe('');
    expect(recallIn('planning?').text).toBe('');
  });
});
