import fs from 'node:fs';
import path from 'node:path';
import { createRecall } from '../../src/recall/lexical';
import { searchIndex } from '../../src/recall/search';
import type { Index } from '../../src/recall/types';
import { makeTmpDir } from '../helpers/tmp';

/**
 * The search's ranking, in process: which lines match, in which order, with which scores. The CLI
 * and console tests (search.test.ts) check the command around it.
 */
let tmp: ReturnType<typeof makeTmpDir>;
let chan: string;
beforeEach(() => {
  tmp = makeTmpDir();
  chan = path.join(tmp.dir, 'chan');
  fs.mkdirSync(path.join(chan, 'condensations'), { recursive: true });
});
afterEach(() => tmp.cleanup());

const LINES = [
  '- [m-aa0001] The orders service runs on Postgres 16 [from: #db, 2026-10-01]',
  '- [m-aa0002] Kafka carries the orders events [from: #data, 2026-10-02]',
  '- [m-aa0003] Kafka retention is seven days for the orders topic, and Kafka lag alerts page the on-call [from: #data, 2026-10-03]',
  '- [m-aa0004] Billing exports run nightly [from: #ops, 2026-10-04]',
];

function index(files: Record<string, string>): Index {
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(chan, name), text);
  return createRecall().indexOf({ channelDirs: [chan] });
}
const memory = (lines: string[], heading = 'Facts') => `# Channel Memory\n\n## ${heading}\n\n${lines.join('\n')}\n`;
/** Cosines for the index's candidates, by a part of each line's text; NaN for the rest. */
function cosines(ix: Index, byText: Record<string, number>): Float32Array {
  return Float32Array.from(ix.cands.map((c) => Object.entries(byText).find(([t]) => c.text.includes(t))?.[1] ?? NaN));
}

describe('searchIndex', () => {
  test('every line sharing a word matches, best first by BM25 (a short line before a long one that says it twice); no gate', () => {
    const ix = index({ 'MEMORY.md': memory(LINES) });
    const items = searchIndex(ix, { query: 'kafka' }, undefined);
    expect(items.map((i) => i.text)).toEqual([LINES[1], LINES[2]]);
    expect(items[0].lexical).toBeGreaterThan(items[1].lexical);
    expect(items[0].score).toBe(1);
    expect(items[1].score).toBeGreaterThan(0);
    expect(items[1].score).toBeLessThan(1);
    for (const it of items) {
      expect(it.semantic).toBeUndefined();
      expect(it.file).toBe('MEMORY.md');
      expect(it.heading).toBe('Facts');
      // Three decimals, as recall reports them.
      expect(Math.round(it.lexical * 1000) / 1000).toBe(it.lexical);
    }
    expect(searchIndex(ix, { query: 'zebra' }, undefined)).toEqual([]);
    expect(searchIndex(ix, { query: '   ' }, undefined)).toEqual([]);
    // Question words carry no topic; the rest still matches.
    expect(searchIndex(ix, { query: 'what about billing?' }, undefined).map((i) => i.text)).toEqual([LINES[3]]);
  });

  test('a heading word matches the lines under it, below a line that has the word itself', () => {
    const ix = index({ 'MEMORY.md': memory(['- [m-bb0001] Runs on Postgres 16 [from: #db, 2026-10-01]'], 'Orders') + memory([LINES[1]], 'Events') });
    const items = searchIndex(ix, { query: 'orders' }, undefined);
    expect(items.map((i) => i.text)).toEqual([LINES[1], '- [m-bb0001] Runs on Postgres 16 [from: #db, 2026-10-01]']);
    expect(items[1].lexical).toBeGreaterThan(0);
    expect(items[1].lexical).toBeLessThan(items[0].lexical);
  });

  test('the limit: 10 by default, at least 1, at most 100', () => {
    const many = Array.from({ length: 120 }, (_, i) => `- [m-${(300000 + i).toString(36)}] Node pool ${i} runs the workers [from: #ops, 2026-10-01]`);
    const ix = index({ 'MEMORY.md': memory(many) });
    expect(searchIndex(ix, { query: 'workers' }, undefined)).toHaveLength(10);
    expect(searchIndex(ix, { query: 'workers', limit: 3 }, undefined)).toHaveLength(3);
    expect(searchIndex(ix, { query: 'workers', limit: 0 }, undefined)).toHaveLength(1);
    expect(searchIndex(ix, { query: 'workers', limit: 500 }, undefined)).toHaveLength(100);
  });

  test('the same line in two files is listed once, from the file that comes first', () => {
    const ix = index({ 'SESSION.md': `# Session\n\n## Current State\n\n${LINES[1]}\n`, 'MEMORY.md': memory(LINES) });
    const items = searchIndex(ix, { query: 'kafka events' }, undefined);
    expect(items.filter((i) => i.text === LINES[1]).map((i) => i.file)).toEqual(['SESSION.md']);
  });

  test('meaning: a line found by meaning alone needs the floor of its embedder (0.19 deviations under the null mean); scores fuse 0.7 words and 0.3 meaning, min-max over the matches', () => {
    const ix = index({ 'MEMORY.md': memory(LINES) });
    const cos = cosines(ix, { 'Postgres 16': 0.62, 'Kafka carries': 0.3, 'Kafka retention': 0.1, 'Billing exports': 0.29 });
    // An embedder whose unrelated texts score 0.319 ± 0.1: its floor for meaning alone is cosine 0.3.
    const calibration = { mean: 0.319, sd: 0.1 };
    const items = searchIndex(ix, { query: 'kafka' }, { cos, calibration });
    expect(items[2].meaning).toBeCloseTo((0.62 - 0.319) / 0.1, 2);
    expect(items.map((i) => i.text)).toEqual([LINES[1], LINES[2], LINES[0]]);
    const [top, second, meaningOnly] = items;
    // Min-max over the matches: cosines 0.1 (lowest) to 0.62 (highest); words relative to the best.
    expect(top.score).toBeCloseTo(0.7 + 0.3 * ((0.3 - 0.1) / (0.62 - 0.1)), 3);
    expect(top.semantic).toBe(0.3);
    expect(second.score).toBeCloseTo(0.7 * (second.lexical / top.lexical), 2);
    expect(second.semantic).toBe(0.1);
    expect(meaningOnly.lexical).toBe(0);
    expect(meaningOnly.score).toBeCloseTo(0.3, 3);
    expect(meaningOnly.semantic).toBe(0.62);
    // 0.29 is below the bar for meaning alone.
    expect(items.some((i) => i.text === LINES[3])).toBe(false);
    // The same judgements from an embedder on another scale (cosine 0.5 + 0.4c, its null likewise).
    const scaled = Float32Array.from(cos, (c) => (Number.isNaN(c) ? c : 0.5 + 0.4 * c));
    const other = searchIndex(ix, { query: 'kafka' }, { cos: scaled, calibration: { mean: 0.5 + 0.4 * 0.319, sd: 0.04 } });
    expect(other.map((i) => i.text)).toEqual(items.map((i) => i.text));
    expect(other.map((i) => i.meaning)).toEqual(items.map((i) => i.meaning));
  });

  test('a condensation line keeps its pinned post link', () => {
    fs.writeFileSync(
      path.join(chan, 'condensations', '2026-10-05-kafka.md'),
      '---\ntopic: Kafka\npost_url: https://discord.com/channels/1/2/3\n---\n\n## 📝 Condensation: Kafka\n**Decision:** Kafka replaces RabbitMQ for the orders events\n',
    );
    const ix = index({ 'MEMORY.md': memory(LINES.slice(3)) });
    const items = searchIndex(ix, { query: 'rabbitmq' }, undefined);
    expect(items).toHaveLength(1);
    expect(items[0].link).toBe('https://discord.com/channels/1/2/3');
  });
});
