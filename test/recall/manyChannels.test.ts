import fs from 'node:fs';
import path from 'node:path';
import * as vocabulary from '../../src/embed/vocabulary';
import { silentLogger } from '../../src/log/logger';
import { createRecall } from '../../src/recall/lexical';
import { createRecallService } from '../../src/recall/service';
import type { Index } from '../../src/recall/types';
import { makeTmpDir } from '../helpers/tmp';

/**
 * Issue 25 §2.1: a bot busy in more than 16 channels rebuilt every index and re-parsed every memory
 * file on every message (a count bound of 16 thrashed); the recall service also looked the index up
 * twice per turn. Seen through the index objects recall returns, files changed behind its back, and the `lexical`
 * dependency the service takes.
 */
describe('recall across many active channels', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  const CHANNELS = 40;
  /** Whole seconds, so a test can set a file's mtime back exactly after changing it. */
  const KEPT_TIME = 1_700_000_000;
  let dirs: string[];

  beforeEach(() => {
    tmp = makeTmpDir();
    dirs = Array.from({ length: CHANNELS }, (_, i) => {
      const d = path.join(tmp.dir, `c${i}`);
      fs.mkdirSync(d);
      fs.writeFileSync(
        path.join(d, 'MEMORY.md'),
        `# Channel Memory\n\n- [m-aaaa${String(i).padStart(2, '0')}] Channel ${i} deploys with Kafka topic t${i} [from: t, 2026-01-01]\n`,
      );
      fs.writeFileSync(path.join(d, 'HISTORY.md'), `# History\n\n2026-01-01: the channel ${i} team talked about Kafka.\n`);
      fs.utimesSync(path.join(d, 'MEMORY.md'), KEPT_TIME, KEPT_TIME);
      return d;
    });
  });
  afterEach(() => tmp.cleanup());

  it('with 40 channels answered by turns, builds each index once and reads each file once', () => {
    const recall = createRecall();
    const built = new Map<string, Set<Index>>();
    for (let round = 0; round < 3; round++) {
      for (const d of dirs) {
        const index = recall.indexOf({ channelDirs: [d] });
        built.set(d, (built.get(d) ?? new Set()).add(index));
        expect(recall.recall({ channelDirs: [d], query: 'which kafka topic do we deploy with' }).text).toContain('Kafka topic');
      }
    }
    for (const d of dirs) expect(built.get(d)!.size).toBe(1);
    // Not re-read either: a file changed behind recall's back with its size and mtime kept is
    // still seen as it was (the cache trusts the stat), in every one of the 40 channels.
    for (const [i, d] of dirs.entries()) {
      const file = path.join(d, 'MEMORY.md');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('Kafka', 'Pulsr'));
      fs.utimesSync(file, KEPT_TIME, KEPT_TIME);
      expect(recall.recall({ channelDirs: [d], query: `which kafka topic t${i} do we deploy with` }).text).toContain('Kafka topic');
    }
  });

  it('after an eviction or a change, the index is rebuilt from the files as they are now', () => {
    const recall = createRecall();
    const first = recall.indexOf({ channelDirs: [dirs[0]] });
    fs.appendFileSync(path.join(dirs[0], 'MEMORY.md'), '- [m-bbbb01] Channel 0 moved to Redis streams [from: t, 2026-02-01]\n');
    const second = recall.indexOf({ channelDirs: [dirs[0]] });
    expect(second).not.toBe(first);
    expect(second.cands.map((c) => c.body)).toContain('Channel 0 moved to Redis streams');
  });

  it('lists and stats the sources once per turn through the service (not once to look and once to recall)', async () => {
    const lexical = createRecall();
    let listings = 0;
    // Every call that lists the sources (stats SESSION, MEMORY, HISTORY, condensations) is counted.
    const counted: typeof lexical = {
      ...lexical,
      indexOf: (input) => (listings++, lexical.indexOf(input)),
      recall: (input, dense) => (listings++, lexical.recall(input, dense)),
    };
    const service = createRecallService({ lexical: counted, logger: silentLogger() });
    for (const d of dirs.slice(0, 5)) {
      const r = await service.recall({ channelDirs: [d], query: 'which kafka topic do we deploy with' });
      expect(r.text).toContain('Kafka topic');
    }
    expect(listings).toBe(5);
  });

  it('reads the rare-word list when the bot prepares at start, not inside the first turn after it', () => {
    // The list (the packaged model's vocabulary) took ~45 ms to read inside a burst's first turn.
    const read = jest.spyOn(vocabulary, 'packagedModelWords');
    try {
      const service = createRecallService({ lexical: createRecall(), logger: silentLogger() });
      service.prepare();
      expect(read).toHaveBeenCalledTimes(1);
      expect(read.mock.results[0].value?.has('evening')).toBe(true);
    } finally {
      read.mockRestore();
    }
  });
});
