import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRecall } from '../../src/recall/lexical';
import type { RecallResult } from '../../src/recall/types';
import { queryTokens, stem, tokenize } from '../../src/recall/tokenize';

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

/** A channel about two people, with enough unrelated lines that names are frequent and words specific. */
function people(extra: string[] = []): string[] {
  const lines: string[] = [];
  const acts = [
    'reads about ancient history',
    'bakes sourdough on Sundays',
    'repairs old radios',
    'grows tomatoes on the balcony',
    'swims at the lake before work',
    'collects vinyl records',
    'volunteers at the animal shelter',
    'learns Portuguese online',
    'plays chess in the park',
    'knits scarves for friends',
    'runs a book club',
    'paints watercolour landscapes',
  ];
  acts.forEach((a, i) => {
    lines.push(`- Marguerite ${a}. [from: D${i + 1}:1, 2026-0${1 + (i % 9)}-1${i % 10}]`);
    lines.push(`- Thaddeus ${a.replace(/s\b/, '')}s with his cousin. [from: D${i + 1}:2, 2026-0${1 + (i % 9)}-1${i % 10}]`);
  });
  return ['# MEMORY', '', '## Facts', '', ...lines, ...extra];
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
  test('question phrasing "in what ways" carries no topic', () => {
    expect(queryTokens('In what ways does the team deploy?')).toEqual(['team', 'deploy']);
  });
});

describe('ranking rules', () => {
  test('a misspelt word the channel never uses matches the word one edit away', () => {
    write('MEMORY.md', people(['- Marguerite plans to continue her education in marine biology. [from: D20:1, 2026-10-01]']).join('\n'));
    const r = recallIn('What would Marguerite study in her educaton?');
    expect(r.items.map((i) => i.text)).toContain('- Marguerite plans to continue her education in marine biology. [from: D20:1, 2026-10-01]');
  });

  test('a capitalised short form of a name matches the name; a lowercase word does not', () => {
    write('MEMORY.md', people(['- Marguerite has been married for five years. [from: D21:1, 2026-10-02]']).join('\n'));
    const top = (r: RecallResult): string | undefined => r.items.slice().sort((a, b) => b.score - a.score)[0]?.text;
    expect(top(recallIn('How long have Marg and her partner been married?'))).toContain('married for five years');
    // Lowercase "marg" is not taken for a name: "married" alone is one word, not enough evidence.
    expect(recallIn('how long have marg and her partner been married?')).toEqual({ text: '', items: [] });
  });

  test('topic credit: a person of the channel plus a specific word opens the gate; the word alone does not', () => {
    write('MEMORY.md', people(['- Thaddeus got a tattoo of a compass that stands for finding his way. [from: D22:1, 2026-10-03]']).join('\n'));
    // The asked-about person is the wrong one (Marguerite), as people often get it: the tattoo line is still recalled.
    expect(recallIn("What does Marguerite's tattoo symbolize?").items.map((i) => i.text)).toContain(
      '- Thaddeus got a tattoo of a compass that stands for finding his way. [from: D22:1, 2026-10-03]',
    );
    expect(recallIn('I want a tattoo')).toEqual({ text: '', items: [] });
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

  test('feedback and session context re-rank; they never admit an entry that shares no word with the message', () => {
    write(
      'MEMORY.md',
      people([
        '## 2026-10-05',
        '',
        '- Kestrel migration finished; the harbour cranes now report telemetry. [from: D30:1, 2026-10-05]',
        '- The harbour cranes are inspected monthly. [from: D30:2, 2026-10-05]',
        '- Lunch was pleasant. [from: D30:3, 2026-10-05]',
      ]).join('\n'),
    );
    write('HISTORY.md', '# HISTORY\n\n## 2026-10-05\n\nThe Kestrel migration of the harbour cranes finished; lunch was pleasant and telemetry flows.\n');
    const r = recallIn('Is the Kestrel migration done?');
    expect(r.items.length).toBeGreaterThan(0);
    for (const it of r.items) expect(it.text).toMatch(/kestrel|migration/i);
  });

  test('session context: of two equal matches, the one from the day whose HISTORY summary matches ranks first', () => {
    write(
      'MEMORY.md',
      [
        '# MEMORY',
        '',
        ...people().slice(4),
        '',
        '## 2026-03-02',
        '',
        '- Thaddeus fixed the greenhouse heater. [from: D40:1, 2026-03-02]',
        '',
        '## 2026-03-09',
        '',
        '- Thaddeus fixed the greenhouse heater again. [from: D41:1, 2026-03-09]',
      ].join('\n'),
    );
    const history = (day: string): string =>
      `# HISTORY\n\n## 2026-03-02\n\nThaddeus talked about ${day === '2026-03-02' ? 'the greenhouse heater and the frost' : 'his cousin'}.\n\n` +
      `## 2026-03-09\n\nThaddeus talked about ${day === '2026-03-09' ? 'the greenhouse heater and the frost' : 'his cousin'}.\n`;
    for (const day of ['2026-03-02', '2026-03-09']) {
      write('HISTORY.md', history(day));
      const mem = recallIn('Who fixed the greenhouse heater?').items.filter((i) => i.file === 'MEMORY.md' && /greenhouse/.test(i.text));
      expect(mem.length).toBe(2);
      const best = mem.slice().sort((a, b) => b.score - a.score)[0];
      expect(best.text).toContain(`[from: D${day === '2026-03-02' ? 40 : 41}:1, ${day}]`);
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
