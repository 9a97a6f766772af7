import fs from 'node:fs';
import path from 'node:path';
import { createRecall } from '../../src/recall/lexical';
import type { RecallResult } from '../../src/recall/types';
import { NULL_CHAT_LINES } from '../../src/recall/nullChat';
import { NULL_TECH_LINES } from '../../src/recall/nullTech';
import { Calibration, calibrate, cosineAt } from '../../src/recall/calibration';
import { DEFAULT_TUNING } from '../../src/recall/tuning';
import { buildRecallService, createRecallService, RecallService } from '../../src/recall/service';
import { CandidateVectors } from '../../src/recall/vectors';
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

describe("warming a channel's recall up at start", () => {
  test("prebuild looks the lines' vectors up (and queues the missing), so the first message asks the model for its own vector only", async () => {
    const embedder = conceptEmbedder(CONCEPTS);
    const { svc } = service(embedder);
    svc.prebuild({ channelDirs: [chan] });
    await svc.idle();
    const lines = embedder.calls.filter((c) => c.priority !== 'query').flatMap((c) => c.texts);
    expect(lines).toEqual(expect.arrayContaining([expect.stringContaining('Releases: Thursdays')]));
    embedder.calls.length = 0;
    const r = await ask(svc, 'When is the billing service shipping?');
    expect(r.items.find((i) => i.text === RELEASES)?.semantic).toBeGreaterThan(0.3);
    expect(embedder.calls).toEqual([{ texts: ['When is the billing service shipping?'], priority: 'query' }]);
  });
});

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

  /**
   * An embedder where every message is e1; every memory line is `line` similar to it; every line of
   * the shipped null (nullChat.ts, nullTech.ts) is `chat` similar to it and `chatToLines` similar to
   * every memory line, and the null lines differ from each other in further dimensions (a seeded
   * spread), so the embedder has a scale (calibration.ts) like a real one. `cal` is that scale.
   */
  function geometric(o: { line: number; chat: number; chatToLines: number }): { embedder: Embedder; cal: Calibration } {
    const shipped = new Map([...NULL_CHAT_LINES, ...NULL_TECH_LINES].map((t, i) => [t, i]));
    const K = 24;
    const d = new Float32Array(3 + K);
    d.set([o.line, Math.sqrt(1 - o.line * o.line)]);
    // u·e1 = chat, u·d = chatToLines; the rest of u's length goes to the spread.
    const u1 = (o.chatToLines - o.chat * o.line) / d[1];
    const rest = Math.sqrt(Math.max(0, 1 - o.chat * o.chat - u1 * u1));
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
    const nullVecs = [...shipped.keys()].map(() => {
      const w = Array.from({ length: K }, rnd);
      w[0] += 1.2; // a shared direction: unrelated texts still score above zero, as with real models
      const n = Math.hypot(...w);
      const v = new Float32Array(3 + K);
      v.set([o.chat, u1, 0]);
      w.forEach((x, k) => (v[3 + k] = (rest * x) / n));
      return v;
    });
    const q = new Float32Array(3 + K);
    q[0] = 1;
    const embedder: Embedder = {
      id: `geometric-${o.line}-${o.chat}-${o.chatToLines}`,
      async embed(ts, opts = {}) {
        return ts.map((t) => (opts.priority === 'query' ? q : shipped.has(t) ? nullVecs[shipped.get(t)!] : d));
      },
      async close() {
        /* nothing */
      },
    };
    return { embedder, cal: calibrate(nullVecs) };
  }
  const speaks = async (e: { embedder: Embedder }, line: string): Promise<boolean> => {
    const { svc } = service(e.embedder);
    await svc.indexAll({ channelDirs: [chan] });
    return (await ask(svc, line)).items.length > 0;
  };
  const CHATTY = 'lol that movie was great';
  /** The cosine at a number of the embedder's null deviations above its mean. */
  const at = (o: { chat: number; chatToLines: number }, z: number) => cosineAt(geometric({ line: 0.5, ...o }).cal, z);

  test("meaning alone opens recall only past a floor (in the embedder's own units), for a message closer to the channel than to the null", async () => {
    const o = { chat: 0.1, chatToLines: 0.1 };
    const floor = at(o, DEFAULT_TUNING.denseFloor);
    expect(floor).toBeGreaterThan(0.2);
    expect(await speaks(geometric({ line: floor + 0.05, ...o }), CHATTY)).toBe(true);
    expect(await speaks(geometric({ line: floor - 0.05, ...o }), CHATTY)).toBe(false);
    // As close to the channel as before, but much closer still to the null: a message about nothing in particular.
    expect(await speaks(geometric({ line: floor + 0.05, chat: floor + 0.2, chatToLines: 0.1 }), CHATTY)).toBe(false);
  });

  test('a channel whose lines everyday chat also scores high against raises its own bar', async () => {
    const line = at({ chat: 0.1, chatToLines: 0.1 }, DEFAULT_TUNING.denseFloor) + 0.2;
    // Everyday chat scores just under the message against every line of this channel: it does not beat it.
    expect(await speaks(geometric({ line, chat: 0.1, chatToLines: line - 0.01 }), CHATTY)).toBe(false);
    expect(await speaks(geometric({ line, chat: 0.1, chatToLines: line - 0.15 }), CHATTY)).toBe(true);
  });

  test('a message with no content word is never opened by meaning alone', async () => {
    for (const line of ['thanks!', 'ok ok', 'hey, how are you?', 'yes, sure, 42']) {
      expect(await speaks(geometric({ line: 0.9, chat: 0.1, chatToLines: 0.1 }), line)).toBe(false);
    }
  });

  test('words alone do not open recall for a message far closer to everyday chat than to any line', async () => {
    // "Bob" and "tabs" are the channel's own words; the message is still everyday chat.
    const line = 'haha Bob and his tabs again';
    expect((await ask(service(undefined).svc, line)).items.length).toBeGreaterThan(0);
    expect(await speaks(geometric({ line: 0.2, chat: 0.7, chatToLines: 0.1 }), line)).toBe(false);
    expect(await speaks(geometric({ line: 0.45, chat: 0.5, chatToLines: 0.1 }), line)).toBe(true);
  });

  test('a template placeholder is never a candidate, however close a message is to it', async () => {
    fs.writeFileSync(path.join(chan, 'SESSION.md'), '# Session\n\n## Goal\n\n(no active task)\n\n## Current State\n\n- (none)\n\n_Nothing condensed yet._\n');
    fs.writeFileSync(path.join(chan, 'MEMORY.md'), '# Channel Memory\n\n## Facts\n\n- TBD\n');
    const { svc } = service(geometric({ line: 0.95, chat: 0.1, chatToLines: 0.1 }).embedder);
    await svc.indexAll({ channelDirs: [chan] });
    for (const q of ['ping', 'no active task?', 'what is the task', 'nothing condensed yet']) expect((await ask(svc, q)).items).toEqual([]);
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
    // The five lines, and the shipped null (everyday chat, generic technical) each channel's bar and the embedder's scale are measured with.
    expect(embeddedFirst).toBe(5 + NULL_CHAT_LINES.length + NULL_TECH_LINES.length);

    const again = conceptEmbedder(CONCEPTS);
    const b = service(again, { cacheDir });
    await b.svc.indexAll({ channelDirs: [chan] });
    expect(again.calls).toEqual([]);
    expect(texts(await ask(b.svc, 'When is the billing service shipping?'))).toContain(RELEASES);
    expect(again.calls.map((c) => c.priority)).toEqual(['query']);

    const other = conceptEmbedder(CONCEPTS, { id: 'another-model' });
    const c = service(other, { cacheDir });
    await c.svc.indexAll({ channelDirs: [chan] });
    expect(other.calls.flatMap((x) => x.texts)).toHaveLength(5 + NULL_CHAT_LINES.length + NULL_TECH_LINES.length);
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
