import fs from 'node:fs';
import path from 'node:path';
import { WorkerEmbedder } from '../../src/embed/workerEmbedder';
import { capturedLogger } from '../helpers/botHarness';

/**
 * Queries of concurrent turns go to the sentence model together (issue 41 §5), through the real
 * worker thread and a fake model (fixtures/batchModel.js) that logs each call's texts.
 */
const model = path.join(__dirname, 'fixtures', 'batchModel.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const logFile: string = (require(model) as { logFile(): string }).logFile();
const calls = (): string[][] =>
  fs
    .readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as string[]);
const query = (maxWaitMs?: number) => ({ priority: 'query' as const, maxWaitMs });

/** An embedder whose thread has run the model once (its first call is the slow, cold one), and then a query, which measures its speed. */
async function warm(): Promise<WorkerEmbedder> {
  const e = new WorkerEmbedder({ logger: capturedLogger().logger, modelModule: model, id: 'batch-test' });
  await e.embed(['warm 0'], { priority: 'document' });
  await e.embed(['warm 1'], query(150));
  fs.rmSync(logFile, { force: true });
  return e;
}

describe('queries asked together', () => {
  let e: WorkerEmbedder | undefined;
  afterEach(async () => {
    await e?.close();
    e = undefined;
    fs.rmSync(logFile, { force: true });
  });

  test('N concurrent queries make one model call with the N texts, and each caller gets its own vector', async () => {
    e = await warm();
    const asked = Array.from({ length: 12 }, (_, i) => e!.embed([`q${i}`], query()));
    const got = await Promise.all(asked);
    expect(calls()).toEqual([Array.from({ length: 12 }, (_, i) => `q${i}`)]);
    expect(got.map((v) => v.map((x) => x[0]))).toEqual(Array.from({ length: 12 }, (_, i) => [i]));
  });

  test('the cold first batch of a thread does not count as the model’s speed: queries after it are not refused', async () => {
    // The warm-up takes 400 ms for one text; judged by it, six queries would seem to need seconds.
    e = await warm();
    const got = await Promise.all(Array.from({ length: 6 }, (_, i) => e!.embed([`q${i}`], query(150))));
    expect(got.map((v) => v[0][0])).toEqual([0, 1, 2, 3, 4, 5]);
    expect(calls()).toHaveLength(1);
  });

  test('while the model loads, one query waits for it and those asked meanwhile go by words at once', async () => {
    e = new WorkerEmbedder({ logger: capturedLogger().logger, modelModule: model, id: 'batch-test' });
    const t0 = performance.now();
    const asked = [0, 1, 2].map((i) => e!.embed([`q${i}`], query(150)));
    await expect(asked[1]).rejects.toThrow(/busy/);
    await expect(asked[2]).rejects.toThrow(/busy/);
    expect(performance.now() - t0).toBeLessThan(30);
    // The first call of the thread is cold (400 ms): the first query gives up at its bound.
    await expect(asked[0]).rejects.toThrow(/busy/);
    expect(performance.now() - t0).toBeLessThan(150 + 80);
  });

  test('with no measured speed, one query goes alone and those asked while it runs go by words at once', async () => {
    e = new WorkerEmbedder({ logger: capturedLogger().logger, modelModule: model, id: 'batch-test' });
    await e.embed(['warm 0'], { priority: 'document' });
    fs.rmSync(logFile, { force: true });
    const t0 = performance.now();
    const asked = [0, 1, 2].map((i) => e!.embed([`q${i}`], query(150)));
    await expect(asked[1]).rejects.toThrow(/busy/);
    await expect(asked[2]).rejects.toThrow(/busy/);
    expect(performance.now() - t0).toBeLessThan(30);
    await expect(asked[0]).resolves.toEqual([Float32Array.of(0, 0, 0, 0)]);
    // Its answer measured the model: now queries asked together go together.
    const more = await Promise.all([3, 4, 5].map((i) => e!.embed([`q${i}`], query(150))));
    expect(more.map((v) => v[0][0])).toEqual([3, 4, 5]);
    expect(calls()).toEqual([['q0'], ['q3', 'q4', 'q5']]);
  });

  test('queries arriving while a batch runs go together in the next one; documents wait for them', async () => {
    e = await warm();
    const first = e.embed(['SLOW 150 q1'], query());
    await new Promise((r) => setTimeout(r, 40));
    const doc = e.embed(['d9'], { priority: 'document' });
    const later = [2, 3, 4].map((i) => e!.embed([`q${i}`], query()));
    await Promise.all([first, doc, ...later]);
    expect(calls()).toEqual([['SLOW 150 q1'], ['q2', 'q3', 'q4'], ['d9']]);
  });

  test('a slow batch does not make a query wait past its bound; the model is then known slow, and tried again later', async () => {
    e = await warm();
    // A batch the speed so far says is quick, that takes 600 ms.
    const slow = e.embed(['SLOW 600 q1'], query(150));
    const t0 = performance.now();
    await expect(slow).rejects.toThrow(/busy/);
    expect(performance.now() - t0).toBeLessThan(150 + 80);
    // Its query gave up after 150 ms: the model is at least that slow, so a query asked while the
    // batch still runs is refused at once rather than left to wait out its bound too.
    const t1 = performance.now();
    await expect(e.embed(['q2'], query(150))).rejects.toThrow(/busy/);
    expect(performance.now() - t1).toBeLessThan(30);
    // Judged by that batch, one query takes longer than its wait: refused, even with the model idle…
    await new Promise((r) => setTimeout(r, 600));
    await expect(e.embed(['q3'], query(150))).rejects.toThrow(/busy/);
    // …until the judgment is old (PROBE_AFTER_MS): an idle model is given one query again.
    await new Promise((r) => setTimeout(r, 5_000));
    await expect(e.embed(['q4'], query(150))).resolves.toEqual([Float32Array.of(4, 0, 0, 0)]);
    expect(calls()).toEqual([['SLOW 600 q1'], ['q4']]);
  }, 15_000);

  test('a failed batch rejects every query in it, with the reason on one line', async () => {
    e = await warm();
    const asked = ['q1', 'q2 BOOM', 'q3', 'q4'].map((t) => e!.embed([t], query(150)));
    const settled = await Promise.allSettled(asked);
    const reasons = settled.map((s) => (s.status === 'rejected' ? (s.reason as Error).message : 'resolved'));
    expect(reasons).toEqual(Array(4).fill('embedding failed: the model choked on its input at embed (batchModel.js:1:1)'));
    expect(calls()).toHaveLength(1);
  });
});
