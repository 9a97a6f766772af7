import fs from 'node:fs';
import path from 'node:path';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { runCli } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';

/**
 * Issue 41 §2: every similarity threshold belongs to the embedder in use. An embeddings server whose
 * cosines live on another scale (the fake's `/v1/embeddings` with `shift`: two unrelated texts score
 * 0.6 instead of 0) must give the same judgements as the plain one: search finds the lines that share
 * a meaning with the query and not every line, chat stays silent, a question about a line recalls it.
 * With thresholds fitted to the packaged model (a cosine of 0.3 for search), every line of the
 * channel matched every query on such an embedder.
 */
let tmp: ReturnType<typeof makeTmpDir>;
let fake: FakeModelServer;
let chan: string;
const LINES = [
  '- [m-aa0001] Alice owns the billing service. [from: #ops, 2026-11-01]',
  '- [m-aa0002] Releases: Thursdays [from: #ops, 2026-11-02]',
  '- [m-aa0003] The staging database listens on port 6543. [from: #ops, 2026-11-03]',
  '- [m-aa0004] Bob prefers tabs over spaces. [from: #dev, 2026-11-04]',
  '- [m-aa0005] The design review moved to the big room. [from: #dev, 2026-11-05]',
];

beforeAll(async () => {
  tmp = makeTmpDir();
  chan = path.join(tmp.dir, 'team');
  fs.mkdirSync(chan);
  fs.writeFileSync(path.join(chan, 'MEMORY.md'), ['# Channel Memory', '', '## Facts', ...LINES].join('\n') + '\n');
  fake = await startFakeModelServer();
  // "shipping" means a release: a paraphrase of the Releases line shares no word with it.
  fake.embeddings.concepts = { ship: 'release', shipping: 'release', releases: 'release', when: '', the: '', is: '', are: '' };
});
afterAll(async () => {
  await fake.close();
  tmp.cleanup();
});

async function onScale(shift: number): Promise<{ search: (q: string) => Promise<string[]>; recall: (q: string) => Promise<string[]> }> {
  fake.embeddings.shift = shift;
  const config = path.join(tmp.dir, `config-${shift}.json`);
  // Another model name per scale: the vector cache is keyed by it, as it would be for another model.
  fs.writeFileSync(config, JSON.stringify({ recall: { semantic: 'api', api: { baseUrl: fake.openaiBaseURL, model: `embed-${shift}` } } }));
  const env = { MINUTES_CONFIG: config, LOG_LEVEL: 'warn', MINUTES_VECTOR_CACHE: path.join(tmp.dir, 'vectors') };
  const items = async (args: string[]) => {
    const r = await runCli(args, { env, cwd: tmp.dir });
    expect(r.code).toBe(0);
    return (JSON.parse(r.stdout) as { items: { text: string }[] }).items.map((i) => i.text);
  };
  return {
    search: (q) => items(['search', '--channel-dir', chan, '--json', '--semantic', 'api', '--query', q]),
    recall: (q) => items(['recall', '--channel-dir', chan, '--json', '--semantic', 'api', '--now', '2026-11-20', '--query', q]),
  };
}

test('search and abstention hold on an embedder whose cosines live on another scale', async () => {
  const seen: Record<string, unknown>[] = [];
  for (const shift of [0, 0.6]) {
    const e = await onScale(shift);
    const paraphrase = await e.search('when are we shipping?');
    // A paraphrase finds its line by meaning, first.
    expect({ shift, first: paraphrase[0] }).toEqual({ shift, first: LINES[1] });
    // Chat recalls nothing; a question about a line recalls it.
    expect({ shift, recalled: await e.recall('lol that movie was great') }).toEqual({ shift, recalled: [] });
    expect({ shift, recalled: (await e.recall('who owns the billing service?')).includes(LINES[0]) }).toEqual({ shift, recalled: true });
    seen.push({ paraphrase, design: await e.search('design tabs'), database: await e.search('which port does the database use?') });
  }
  // The same lines, in the same order, whatever the scale (absolute cosines let every line match on the shifted one).
  expect(seen[1]).toEqual(seen[0]);
  expect((seen[0].paraphrase as string[]).length).toBeLessThan(LINES.length);
}, 60_000);
