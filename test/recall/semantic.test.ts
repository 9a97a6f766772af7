import fs from 'node:fs';
import path from 'node:path';
import { createRecall, RecallResult } from '../../src/memory/recall';
import { DEFAULT_TUNING } from '../../src/memory/recallTuning';
import { buildRecallService, createRecallService, RecallService } from '../../src/memory/hybridRecall';
import { CandidateVectors } from '../../src/memory/recallVectors';
import { VectorCache } from '../../src/embed/vectorCache';
import type { Embedder } from '../../src/embed/types';
import { silentLogger } from '../../src/log/logger';
import { capturedLogger } from '../helpers/botHarness';
import { conceptEmbedder } from '../helpers/embedder';
import { makeTmpDir } from '../helpers/tmp';
import { startFakeModelServer } from '../fakes/model/server';

/**
 * Recall by words and meaning, with a deterministic concept embedder standing in for the model
 * (these tests are about fusion, caching and fallback; the real model has its own tests).
 */
const NOW = new Date('2026-11-20T00:00:00Z');
/** "ship" and "shipping" mean a release; small words carry no meaning here. */
const CONCEPTS = { ship: 'release', shipping: 'release', releases: 'release', when: '', the: '', is: '' };

let tmp: ReturnType<typeof makeTmpDir>;
let chan: string;
beforeEach(() => {
  tmp = makeTmpDir();
  chan = path.join(tmp.dir, 'chan');
  fs.mkdirSync(chan, { recursive: true });
  fs.writeFileSync(
    path.join(chan, 'MEMORY.md'),
    [
      '# Channel Memory',
      '',
      '## Facts',
      '- [m-aa0001] Alice owns the billing service. [from: #ops, 2026-11-01]',
      '- [m-aa0002] Releases: Thursdays [from: #ops, 2026-11-02]',
      '- [m-aa0003] The staging database listens on port 6543. [from: #ops, 2026-11-03]',
      '- [m-aa0004] Bob prefers tabs over spaces. [from: #dev, 2026-11-04]',
      '- [m-aa0005] The design review moved to the big room. [from: #dev, 2026-11-05]',
    ].join('\n') + '\n',
  );
});
afterEach(() => tmp.cleanup());

function service(embedder: Embedder | undefined, o: { cacheDir?: string; queryTimeoutMs?: number } = {}): { svc: RecallService; vectors?: CandidateVectors } {
  const logger = silentLogger();
  if (!embedder) return { svc: createRecallService({ lexical: createRecall(), logger }) };
  const cache = new VectorCache({ dir: o.cacheDir, modelId: embedder.id, logger });
  const vectors = new CandidateVectors({ embedder, cache, logger });
  return { svc: createRecallService({ lexical: createRecall(), embedder, vectors, logger, queryTimeoutMs: o.queryTimeoutMs }), vectors };
}

const ask = (svc: RecallService, query: string): Promise<RecallResult> => svc.recall({ channelDirs: [chan], query, now: NOW });
const texts = (r: RecallResult) => r.items.map((i) => i.text);
const RELEASES = '- [m-aa0002] Releases: Thursdays [from: #ops, 2026-11-02]';

describe('hybrid recall: words decide whether to speak, meaning adds what words miss', () => {
  test('a line that shares no word with the message is recalled by meaning, and only with meaning on', async () => {
    const query = 'When is the billing service shipping?';
    const words = await ask(service(undefined).svc, query);
    expect(texts(words)).toContain('- [m-aa0001] Alice owns the billing service. [from: #ops, 2026-11-01]');
    expect(texts(words)).not.toContain(RELEASES);

    const { svc } = service(conceptEmbedder(CONCEPTS));
    await svc.indexAll({ channelDirs: [chan] });
    const both = await ask(svc, query);
    const item = both.items.find((i) => i.text === RELEASES);
    expect(item).toBeDefined();
    expect(item!.lexical).toBe(0);
    expect(item!.semantic).toBeGreaterThan(0.3);
    // The lexical hit carries both scores.
    const billing = both.items.find((i) => i.text.includes('billing'))!;
    expect(billing.lexical).toBeGreaterThan(0);
    expect(billing.semantic).toBeGreaterThan(0);
  });

  test('meaning alone makes recall speak only above the calibrated floor (DEFAULT_TUNING.denseGate)', async () => {
    // Every line is exactly `cos` similar to every message.
    const uniform = (cos: number): Embedder => ({
      id: `uniform-${cos}`,
      async embed(ts, o = {}) {
        return ts.map(() => (o.priority === 'query' ? Float32Array.from([1, 0]) : Float32Array.from([cos, Math.sqrt(1 - cos * cos)])));
      },
      async close() {
        /* nothing */
      },
    });
    const chat = ['lol that movie was great', 'thanks!', 'good morning everyone'];
    const below = service(uniform(DEFAULT_TUNING.denseGate - 0.02)).svc;
    await below.indexAll({ channelDirs: [chan] });
    for (const line of chat) expect((await ask(below, line)).text).toBe('');
    const above = service(uniform(DEFAULT_TUNING.denseGate + 0.05)).svc;
    await above.indexAll({ channelDirs: [chan] });
    expect((await ask(above, chat[0])).items.length).toBeGreaterThan(0);
  });

  test('a reply never waits for indexing: lines without a vector yet are scored by words, then join after the background run', async () => {
    const embedder = conceptEmbedder(CONCEPTS);
    const { svc } = service(embedder);
    const query = 'When is the billing service shipping?';
    const first = await ask(svc, query);
    expect(texts(first)).not.toContain(RELEASES);
    expect(first.items.every((i) => i.semantic === undefined)).toBe(true);
    await svc.idle();
    expect(embedder.calls.some((c) => c.priority === 'document')).toBe(true);
    expect(texts(await ask(svc, query))).toContain(RELEASES);
  });

  test('a model that hangs or fails leaves recall by words, within the query timeout', async () => {
    const query = 'When is the billing service shipping?';
    const words = await ask(service(undefined).svc, query);
    for (const embedder of [conceptEmbedder(CONCEPTS, { hang: true }), conceptEmbedder(CONCEPTS, { fail: true })]) {
      const { svc } = service(embedder, { queryTimeoutMs: 50 });
      const r = await ask(svc, query);
      expect(r.text).toBe(words.text);
      expect(r.text).not.toBe('');
    }
  });

  test('Chinese or Japanese text is scored by words only: no query vector, no line vector', async () => {
    fs.appendFileSync(path.join(chan, 'MEMORY.md'), '- [m-aa0006] 部署在周四进行 [from: #ops, 2026-11-06]\n');
    const embedder = conceptEmbedder(CONCEPTS);
    const { svc } = service(embedder);
    await svc.indexAll({ channelDirs: [chan] });
    const r = await ask(svc, '部署在周四吗');
    expect(texts(r)).toContain('- [m-aa0006] 部署在周四进行 [from: #ops, 2026-11-06]');
    const embedded = embedder.calls.flatMap((c) => c.texts);
    expect(embedded.some((t) => /[\u4e00-\u9fff]/.test(t))).toBe(false);
    expect(embedder.calls.every((c) => c.priority !== 'query')).toBe(true);
  });
});

describe('the vector cache', () => {
  test('a second process embeds nothing it already embedded; a model change re-embeds', async () => {
    const cacheDir = path.join(tmp.dir, 'vectors');
    const first = conceptEmbedder(CONCEPTS);
    const a = service(first, { cacheDir });
    await a.svc.indexAll({ channelDirs: [chan] });
    await a.svc.close();
    const embeddedFirst = first.calls.flatMap((c) => c.texts).length;
    expect(embeddedFirst).toBe(5);

    const again = conceptEmbedder(CONCEPTS);
    const b = service(again, { cacheDir });
    await b.svc.indexAll({ channelDirs: [chan] });
    expect(again.calls).toEqual([]);
    expect(texts(await ask(b.svc, 'When is the billing service shipping?'))).toContain(RELEASES);
    expect(again.calls.map((c) => c.priority)).toEqual(['query']);

    const other = conceptEmbedder(CONCEPTS, { id: 'another-model' });
    const c = service(other, { cacheDir });
    await c.svc.indexAll({ channelDirs: [chan] });
    expect(other.calls.flatMap((x) => x.texts)).toHaveLength(5);
    await c.svc.close();
    expect(fs.readdirSync(cacheDir).filter((n) => n.endsWith('.vec'))).toHaveLength(2);
  });

  test('an edited line is embedded again; unchanged lines are not', async () => {
    const cacheDir = path.join(tmp.dir, 'vectors');
    const embedder = conceptEmbedder(CONCEPTS);
    const { svc } = service(embedder, { cacheDir });
    await svc.indexAll({ channelDirs: [chan] });
    embedder.calls.length = 0;
    const file = path.join(chan, 'MEMORY.md');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('big room', 'small room'));
    await svc.indexAll({ channelDirs: [chan] });
    expect(embedder.calls.flatMap((c) => c.texts)).toEqual(['The design review moved to the small room.']);
  });

  test('a record cut short by a crash is dropped, and later appends stay aligned', async () => {
    const cacheDir = path.join(tmp.dir, 'vectors');
    const logger = silentLogger();
    const one = new VectorCache({ dir: cacheDir, modelId: 'm', logger });
    one.putMany([
      { hash: 'a'.repeat(32), vector: Float32Array.from([1, 0, 0, 0]) },
      { hash: 'b'.repeat(32), vector: Float32Array.from([0, 1, 0, 0]) },
    ]);
    await one.flush();
    const vec = fs.readdirSync(cacheDir).find((n) => n.endsWith('.vec'))!;
    fs.appendFileSync(path.join(cacheDir, vec), Buffer.from([1, 2, 3, 4, 5]));
    const two = new VectorCache({ dir: cacheDir, modelId: 'm', logger });
    expect(two.size).toBe(2);
    two.putMany([{ hash: 'c'.repeat(32), vector: Float32Array.from([0, 0, 1, 0]) }]);
    await two.flush();
    const three = new VectorCache({ dir: cacheDir, modelId: 'm', logger });
    expect(three.size).toBe(3);
    expect(Array.from(three.get('c'.repeat(32))!)).toEqual([0, 0, 1, 0]);
    expect(Array.from(three.get('a'.repeat(32))!)).toEqual([1, 0, 0, 0]);
  });
});

describe('the api mode (an OpenAI-compatible /v1/embeddings)', () => {
  test('vectors come from the server; a failing server leaves recall by words', async () => {
    const fake = await startFakeModelServer();
    try {
      fake.embeddings.concepts = CONCEPTS;
      const { logger, logs } = capturedLogger();
      const semantic = {
        mode: 'api' as const,
        api: { baseURL: fake.openaiBaseURL, model: 'embed-test', apiKey: 'sk-embed-secret' },
        cacheDir: path.join(tmp.dir, 'vectors'),
      };
      const svc = buildRecallService({ semantic, logger });
      await svc.indexAll({ channelDirs: [chan] });
      const r = await ask(svc, 'When is the billing service shipping?');
      expect(texts(r)).toContain(RELEASES);
      expect(fake.embeddings.requests.length).toBeGreaterThanOrEqual(2);
      expect(new Set(fake.embeddings.requests.map((q) => q.model))).toEqual(new Set(['embed-test']));
      await svc.close();

      fake.embeddings.fail = 1000;
      const down = buildRecallService({ semantic: { ...semantic, cacheDir: path.join(tmp.dir, 'other') }, logger });
      const words = await ask(service(undefined).svc, 'When is the billing service shipping?');
      await down.indexAll({ channelDirs: [chan] });
      expect((await ask(down, 'When is the billing service shipping?')).text).toBe(words.text);
      expect((await ask(down, 'Who owns the billing service?')).text).not.toBe('');
      // One warning for the outage, not one per message; the key never appears in it.
      expect(logs.filter((l) => String(l.msg).startsWith('embeddings server failed'))).toHaveLength(1);
      expect(JSON.stringify(logs)).not.toContain('sk-embed-secret');
      await down.close();
    } finally {
      await fake.close();
    }
  });
});
