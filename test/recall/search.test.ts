import fs from 'node:fs';
import path from 'node:path';
import { makeTmpDir } from '../helpers/tmp';
import { runCli, blocks } from '../helpers/cli';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';

/**
 * An explicit search answers: injection may abstain on a single common word, a person who searches
 * for it still gets the lines that have it. A 401-line channel where 24 lines mention Kafka, and the
 * current decision is "moves back to MySQL 8".
 */
let tmp: ReturnType<typeof makeTmpDir>;
let chan: string;
const KAFKA_LINES: string[] = [];
const MYSQL = '- [m-db0001] The orders service moves back to MySQL 8 after the Postgres trial [from: condensation 2026-10-01-db.md, 2026-10-01]';

beforeAll(() => {
  tmp = makeTmpDir();
  chan = path.join(tmp.dir, 'data', 'local', 'platform');
  fs.mkdirSync(chan, { recursive: true });
  const lines = ['# Channel Memory', '', '## Facts', ''];
  for (let i = 0; i < 400; i++) {
    const id = `m-${(200000 + i).toString(36)}`;
    if (i % 17 === 0 && KAFKA_LINES.length < 24) {
      const l = `- [${id}] The events pipeline publishes batch ${i} to the Kafka topic orders-${i} [from: #data, 2026-03-10]`;
      KAFKA_LINES.push(l);
      lines.push(l);
    } else lines.push(`- [${id}] Service ${i} runs on node pool ${i % 7} with ${(i % 5) + 1} replicas [from: #ops, 2026-03-01]`);
  }
  lines.push(MYSQL);
  fs.writeFileSync(path.join(chan, 'MEMORY.md'), lines.join('\n') + '\n');
  fs.writeFileSync(path.join(chan, 'SESSION.md'), '# Session\n\n## Goal\n\n(no active task)\n');
});
afterAll(() => tmp.cleanup());

const env = () => ({ LOG_LEVEL: 'warn', MINUTES_VECTOR_CACHE: path.join(tmp.dir, 'vectors') });
type Item = { file: string; heading: string; text: string; score: number; lexical: number; semantic?: number };
async function search(...args: string[]): Promise<{ code: number; items: Item[]; stderr: string }> {
  const r = await runCli(['search', '--channel-dir', chan, '--json', ...args], { env: env(), cwd: tmp.dir });
  return { code: r.code, items: r.code === 0 ? (JSON.parse(r.stdout) as { items: Item[] }).items : [], stderr: r.stderr };
}

describe('minutes search', () => {
  test('a single common word that injection abstains on still answers, best first, with the JSON contract', async () => {
    const recall = await runCli(['recall', '--channel-dir', chan, '--query', 'kafka', '--semantic', 'off', '--json'], { env: env(), cwd: tmp.dir });
    expect(JSON.parse(recall.stdout).items).toEqual([]);

    const kafka = await search('--query', 'kafka', '--semantic', 'off', '--limit', '30');
    expect(kafka.code).toBe(0);
    expect(kafka.items.map((i) => i.text).sort()).toEqual([...KAFKA_LINES].sort());
    for (const it of kafka.items) {
      expect(Object.keys(it).sort()).toEqual(['file', 'heading', 'lexical', 'score', 'text']);
      expect(it.file).toBe('MEMORY.md');
      expect(it.lexical).toBeGreaterThan(0);
    }
    const scores = kafka.items.map((i) => i.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));

    const mysql = await search('--query', 'MySQL', '--semantic', 'off');
    expect(mysql.items.map((i) => i.text)).toEqual([MYSQL]);
    // The default limit is 10.
    expect((await search('--query', 'service replicas', '--semantic', 'off')).items).toHaveLength(10);
  });

  test('a word memory does not have, by meaning: "database" finds the MySQL decision first', async () => {
    // A small folder: the command embeds every line first.
    const small = path.join(tmp.dir, 'small');
    fs.mkdirSync(small);
    const lines = fs.readFileSync(path.join(chan, 'MEMORY.md'), 'utf8').split('\n');
    fs.writeFileSync(path.join(small, 'MEMORY.md'), [...lines.slice(0, 30), MYSQL].join('\n') + '\n');
    const run = async (...a: string[]) => {
      const r = await runCli(['search', '--channel-dir', small, '--json', '--query', 'database', ...a], { env: env(), cwd: tmp.dir });
      return (JSON.parse(r.stdout) as { items: Item[] }).items;
    };
    expect(await run('--semantic', 'off')).toEqual([]);
    const meaning = { items: await run('--semantic', 'local', '--limit', '3') };
    expect(meaning.items[0].text).toBe(MYSQL);
    expect(meaning.items[0].lexical).toBe(0);
    expect(meaning.items[0].semantic).toBeGreaterThan(0.3);
  }, 60_000);

  test('no match is said on stderr with exit 0; an empty query or a bad limit is one line and exit 2; the folder is untouched', async () => {
    const before = fs.readFileSync(path.join(chan, 'MEMORY.md'));
    const none = await runCli(['search', '--channel-dir', chan, '--query', 'zebra', '--semantic', 'off'], { env: env(), cwd: tmp.dir });
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe('minutes search: no line shares a word or a meaning with the query\n');
    const empty = await runCli(['search', '--channel-dir', chan, '--query', '  '], { env: env(), cwd: tmp.dir });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe('minutes search: --query is empty: give the words to look for\n');
    const limit = await runCli(['search', '--channel-dir', chan, '--query', 'x', '--limit', '0'], { env: env(), cwd: tmp.dir });
    expect(limit.code).toBe(2);
    const text = await runCli(['search', '--channel-dir', chan, '--query', 'kafka', '--semantic', 'off', '--limit', '2'], { env: env(), cwd: tmp.dir });
    expect(text.stdout).toMatch(/^1\. \[MEMORY\.md › Facts\] \(words \d+\.\d\d\)\n {3}- \[m-[a-z0-9]+\] The events pipeline/);
    expect(fs.readFileSync(path.join(chan, 'MEMORY.md'))).toEqual(before);
    expect(fs.readdirSync(chan).sort()).toEqual(['MEMORY.md', 'SESSION.md']);
  });
});

describe('/recall in the console', () => {
  let fake: FakeModelServer;
  beforeAll(async () => {
    fake = await startFakeModelServer();
  });
  afterAll(() => fake.close());

  test('when injection abstains, it offers the search\'s best matches instead of "nothing"', async () => {
    // Words only: with meaning on, "kafka" alone is close enough to the Kafka lines to be injected.
    const config = path.join(tmp.dir, 'words-only.json');
    fs.writeFileSync(config, JSON.stringify({ recall: { semantic: 'off' } }));
    const r = await runCli(['chat', '--channel', 'platform'], {
      env: {
        ...env(),
        MINUTES_CONFIG: config,
        ANTHROPIC_API_KEY: 'test-key',
        ANTHROPIC_BASE_URL: fake.anthropicBaseURL,
        MINUTES_DATA_DIR: path.join(tmp.dir, 'data'),
      },
      cwd: tmp.dir,
      input: ['/recall kafka', '/recall zebra'],
    });
    const b = blocks(r.stdout);
    expect(b[0]).toMatch(/^Nothing would be injected for that text \(it does not reach recall's bar\)\. Best matches in memory:/);
    expect(b[0].split('\n').filter((l) => /^\d+\. words \d\.\d\d · meaning .* · MEMORY\.md: .*events pipeline/.test(l))).toHaveLength(5);
    expect(b[1]).toBe('Nothing would be recalled for that text, and no memory line shares a word or a meaning with it.');
    expect(fake.requests).toHaveLength(0);
  }, 60_000);
});
