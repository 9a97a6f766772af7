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
import { hashTree } from './helpers';

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
      expect(body).toMatch(/<td class="score">\d\.\d{3}<\/td><td class="score">\d\.\d{3}<\/td><td class="score">-?\d\.\d{3}<\/td>/);
      expect(fs.readdirSync(cacheDir).length).toBeGreaterThan(0);
      expect(hashTree(root)).toBe(before);
    } finally {
      await d.close();
      await recall.close();
      tmp.cleanup();
    }
  });
});
