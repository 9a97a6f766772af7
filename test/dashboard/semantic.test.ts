import fs from 'node:fs';
import path from 'node:path';
import { createDashboard } from '../../src/dashboard/server';
import { VectorCache } from '../../src/embed/vectorCache';
import { silentLogger } from '../../src/log/logger';
import { createRecallService } from '../../src/recall/service';
import { createRecall } from '../../src/recall/lexical';
import { CandidateVectors } from '../../src/recall/vectors';
import { conceptEmbedder } from '../helpers/embedder';
import { generateDataRoot } from '../helpers/dashboardData';
import { makeTmpDir } from '../helpers/tmp';
import { hashTree, scoreRows } from './helpers';

describe('dashboard search with meaning', () => {
  it('shows semantic scores, and its vector cache fills outside the data root, which stays unchanged', async () => {
    const tmp = makeTmpDir('minutes-dash-sem-');
    const root = path.join(tmp.dir, 'root');
    const cacheDir = path.join(tmp.dir, 'vectors');
    const ids = generateDataRoot(root, { condensations: 3, entries: 10 });
    const logger = silentLogger();
    const embedder = conceptEmbedder({ database: 'db', postgres: 'db', mysql: 'db', sqlite: 'db' });
    const vectors = new CandidateVectors({ embedder, cache: new VectorCache({ dir: cacheDir, modelId: embedder.id, logger }), logger });
    const recall = createRecallService({ lexical: createRecall({ logger }), semantic: 'local', embedder, vectors, logger, queryTimeoutMs: 5_000 });
    const d = createDashboard({ root, host: '127.0.0.1', port: 0, recall });
    try {
      const url = await d.listen();
      await d.warmed();
      const before = hashTree(root);
      const q = `${url}search?q=${encodeURIComponent('which database for orders')}&in=${ids.channelKey}`;
      await (await fetch(q)).text();
      await recall.indexAll({ channelDirs: [path.join(root, ids.channelKey)] });
      await recall.idle();
      const body = await (await fetch(q)).text();
      expect(body).toContain('recall meaning: local');
      // score, lexical, then a semantic cosine (not the "—" of an entry without a vector).
      const rows = scoreRows(body);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((x) => x.semantic !== null)).toBe(true);
      // "database" and "postgres" are one concept here: the best line is close in meaning, not 0.000.
      expect(Math.max(...rows.map((x) => x.semantic ?? 0))).toBeGreaterThan(0.5);
      expect(fs.readdirSync(cacheDir).length).toBeGreaterThan(0);
      expect(hashTree(root)).toBe(before);
    } finally {
      await d.close();
      await recall.close();
      tmp.cleanup();
    }
  });

  it('the first search finds what the second does: the model loads and lines are embedded from the start, and a search waits for its lines', async () => {
    const tmp = makeTmpDir('minutes-dash-sem-');
    const root = path.join(tmp.dir, 'root');
    const ids = generateDataRoot(root, { condensations: 3, entries: 40 });
    const logger = silentLogger();
    // A model that takes a while to load: its first batch answers after 400 ms.
    const inner = conceptEmbedder({ database: 'db', postgres: 'db', mysql: 'db', sqlite: 'db', storage: 'db' });
    let loaded: Promise<void> | undefined;
    const asked: string[][] = [];
    const embedder = {
      ...inner,
      embed: async (texts: string[], o?: Parameters<typeof inner.embed>[1]) => {
        asked.push(texts);
        loaded ??= new Promise((resolve) => setTimeout(resolve, 400));
        await loaded;
        return inner.embed(texts, o);
      },
    };
    const vectors = new CandidateVectors({ embedder, cache: new VectorCache({ dir: path.join(tmp.dir, 'vectors'), modelId: embedder.id, logger }), logger });
    const recall = createRecallService({ lexical: createRecall({ logger }), semantic: 'local', embedder, vectors, logger, queryTimeoutMs: 5_000 });
    const d = createDashboard({ root, host: '127.0.0.1', port: 0, recall });
    try {
      const url = await d.listen();
      // Loading starts with the dashboard, not with the first search.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(asked.length).toBeGreaterThan(0);
      const q = `${url}search?q=${encodeURIComponent('which storage engine for orders')}&in=${ids.channelKey}`;
      const first = await (await fetch(q)).text();
      const second = await (await fetch(q)).text();
      expect(first).toBe(second);
      // Found by meaning too: every recalled line has its cosine, none the "—" of a line without a vector.
      const rows = scoreRows(first);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((x) => x.semantic !== null)).toBe(true);
      expect(Math.max(...rows.map((x) => x.semantic ?? 0))).toBeGreaterThan(0.5);
    } finally {
      await d.close();
      await recall.close();
      tmp.cleanup();
    }
  });
});
