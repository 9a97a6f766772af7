import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../../src/log/logger';
import { createRecall } from '../../src/recall/lexical';
import { createRecallService } from '../../src/recall/service';
import type { FsLike } from '../../src/recall/sources';
import type { Index } from '../../src/recall/types';
import { makeTmpDir } from '../helpers/tmp';

/**
 * Issue 25 §2.1: a bot busy in more than 16 channels rebuilt every index and re-parsed every memory
 * file on every message (a count bound of 16 thrashed); the recall service also looked the index up
 * twice per turn. Counted through the `fs` and `lexical` dependencies the production code takes.
 */
describe('recall across many active channels', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let reads: Map<string, number>;
  let counting: FsLike;
  const CHANNELS = 40;
  let dirs: string[];

  beforeEach(() => {
    tmp = makeTmpDir();
    reads = new Map();
    counting = {
      ...fs,
      readFileSync: ((p: fs.PathOrFileDescriptor, o?: unknown) => {
        reads.set(String(p), (reads.get(String(p)) ?? 0) + 1);
        return fs.readFileSync(p, o as BufferEncoding);
      }) as typeof fs.readFileSync,
    };
    dirs = Array.from({ length: CHANNELS }, (_, i) => {
      const d = path.join(tmp.dir, `c${i}`);
      fs.mkdirSync(d);
      fs.writeFileSync(
        path.join(d, 'MEMORY.md'),
        `# Channel Memory\n\n- [m-aaaa${String(i).padStart(2, '0')}] Channel ${i} deploys with Kafka topic t${i} [from: t, 2026-01-01]\n`,
      );
      fs.writeFileSync(path.join(d, 'HISTORY.md'), `# History\n\n2026-01-01: the channel ${i} team talked about Kafka.\n`);
      return d;
    });
  });
  afterEach(() => tmp.cleanup());

  it('with 40 channels answered by turns, builds each index once and reads each file once', () => {
    const recall = createRecall({ fs: counting });
    const built = new Map<string, Set<Index>>();
    for (let round = 0; round < 3; round++) {
      for (const d of dirs) {
        const index = recall.indexOf({ channelDirs: [d] });
        built.set(d, (built.get(d) ?? new Set()).add(index));
        expect(recall.recall({ channelDirs: [d], query: 'which kafka topic do we deploy with' }).text).toContain('Kafka topic');
      }
    }
    for (const d of dirs) expect(built.get(d)!.size).toBe(1);
    expect(reads.size).toBe(CHANNELS * 2);
    expect([...reads.values()].every((n) => n === 1)).toBe(true);
  });

  it('after an eviction or a change, the index is rebuilt from the files as they are now', () => {
    const recall = createRecall({ fs: counting });
    const first = recall.indexOf({ channelDirs: [dirs[0]] });
    fs.appendFileSync(path.join(dirs[0], 'MEMORY.md'), '- [m-bbbb01] Channel 0 moved to Redis streams [from: t, 2026-02-01]\n');
    const second = recall.indexOf({ channelDirs: [dirs[0]] });
    expect(second).not.toBe(first);
    expect(second.cands.map((c) => c.body)).toContain('Channel 0 moved to Redis streams');
  });

  it('stats the sources once per turn through the service (SESSION, MEMORY, HISTORY, condensations)', async () => {
    let stats = 0;
    const statCounting: FsLike = {
      ...counting,
      statSync: ((p: fs.PathLike, o?: fs.StatSyncOptions) => {
        stats++;
        return fs.statSync(p, o);
      }) as typeof fs.statSync,
    };
    const service = createRecallService({ lexical: createRecall({ fs: statCounting }), logger: silentLogger() });
    for (const d of dirs.slice(0, 5)) {
      const r = await service.recall({ channelDirs: [d], query: 'which kafka topic do we deploy with' });
      expect(r.text).toContain('Kafka topic');
    }
    expect(stats).toBe(5 * 4);
  });
});
