import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { run } from '../../src/cli/main';
import type { CliIO } from '../../src/shared/cliIO';
import type { RecallExplanation } from '../../src/recall/explanation';
import { makeTmpDir } from '../helpers/tmp';

/**
 * Issue 41 §3 with the real sentence model: `minutes recall --explain` on the product's own young
 * example channel says which gate kept a technical question about nothing the channel knows silent
 * (closer to a generic technical message than to the channel, in the model's own units), which one
 * kept everyday chat silent, and, for the channel's own question, which words brought each line.
 */
const CHANNEL = path.join(__dirname, '..', '..', 'examples', 'local', 'orders-team');

let tmp: ReturnType<typeof makeTmpDir>;
beforeAll(() => {
  tmp = makeTmpDir();
  fs.cpSync(CHANNEL, path.join(tmp.dir, 'orders-team'), { recursive: true });
});
afterAll(() => tmp.cleanup());

async function recall(query: string, json: boolean): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  const io: CliIO = {
    stdout,
    stderr,
    stdin: new PassThrough() as unknown as CliIO['stdin'],
    env: { LOG_LEVEL: 'warn', MINUTES_VECTOR_CACHE: path.join(tmp.dir, 'vectors') },
    cwd: tmp.dir,
  };
  const argv = ['node', 'minutes', 'recall', '--channel-dir', path.join(tmp.dir, 'orders-team'), '--query', query, '--explain', '--semantic', 'local'];
  const code = await run(json ? [...argv, '--json'] : argv, io);
  return { code, out, err };
}

const explained = async (query: string): Promise<{ items: unknown[]; explain: RecallExplanation }> => JSON.parse((await recall(query, true)).out);

test('a technical question about nothing the channel knows: silent, closer to a generic technical message', async () => {
  const r = await explained('regex to match an email address');
  expect(r.items).toEqual([]);
  expect(r.explain.silence).toBe('closer-to-tech');
  expect(r.explain.semantic).toBe('used');
  const m = r.explain.meaning!;
  // Compared on what sets texts apart (commonPart.ts): nearer the technical null than any line, by more than the margin.
  expect(-m.techGap).toBeLessThan(m.techMargin);
  expect(m.best).toBeGreaterThan(m.floor);
  expect(r.explain.words.every((w) => w.lines === 0)).toBe(true);
  const text = await recall('TypeError: cannot read properties of undefined', false);
  expect(text.code).toBe(0);
  expect(text.out).toMatch(
    /^Recall stayed silent: words did not open it \(the best line's evidence 0\.00 < 1\.15\), and the message is closer to a generic technical message than to the channel \(by \d\.\d\d on what sets texts apart/,
  );
}, 90_000);

test('everyday chat: silent, and the gate that closed it is named', async () => {
  // A chat line with a word that names something still stays below meaning's floor here…
  const lunch = await explained('anyone up for tacos at lunch?');
  expect(lunch.items).toEqual([]);
  expect(lunch.explain.silence).toBe('meaning-below-floor');
  expect(lunch.explain.meaning!.chat).toBeGreaterThan(lunch.explain.meaning!.best);
  // …and one of everyday words alone never lets meaning open recall.
  const weekend = await explained('how was your weekend?');
  expect(weekend.explain.silence).toBe('no-content-word');
  expect((await recall('how was your weekend?', false)).out).toContain('the message has no word that names something');
}, 90_000);

test("the channel's own question: each line with the words that brought it", async () => {
  const r = await explained('which database do the orders use?');
  expect(r.items.length).toBeGreaterThan(0);
  const e = r.explain;
  expect(e.silence).toBeUndefined();
  expect(e.opened).toBe('words');
  expect(e.items).toHaveLength(r.items.length);
  const decision = e.items.find((i) => i.text.includes('moves to Postgres 16'))!;
  expect(decision).toMatchObject({ file: 'MEMORY.md', by: 'words', words: ['databas', 'order'] });
  expect(decision.evidence).toBeGreaterThanOrEqual(e.gate.gateMin);
  expect(decision.meaning).toBeGreaterThan(e.meaning!.admit);
  const text = (await recall('which database do the orders use?', false)).out;
  expect(text).toContain('<recalled_memory>');
  expect(text).toMatch(/Recall injected \d+ lines: words opened it/);
  expect(text).toContain('database (databas): 5 lines, evidence');
  expect(text).toContain('by words: database, orders (evidence 1.58)');
}, 90_000);
