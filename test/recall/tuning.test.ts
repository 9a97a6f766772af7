import fs from 'node:fs';
import path from 'node:path';
import { createRecall, createTunedRecall } from '../../src/recall/lexical';
import { DEFAULT_TUNING } from '../../src/recall/tuning';
import { makeTmpDir } from '../helpers/tmp';

/** The scoring constants reach recall only through the benches' own factory, and they do reach it. */
describe('recall tuning', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeEach(() => {
    tmp = makeTmpDir();
    fs.writeFileSync(
      path.join(tmp.dir, 'MEMORY.md'),
      '# Channel Memory\n\n- [m-aaaaaa] The nightly backup job runs at 02:00 UTC on the db-3 host [from: al, 2026-11-01]\n- [m-bbbbbb] Release notes are written by Bea every Friday [from: al, 2026-11-02]\n',
    );
  });
  afterEach(() => tmp.cleanup());
  const input = { query: 'when does the nightly backup job run?', now: new Date('2026-11-21T12:00:00Z') };

  it('the product recall runs the defaults; a bench configuration with an unreachable bar abstains on the same question', () => {
    const product = createRecall().recall({ channelDirs: [tmp.dir], ...input });
    expect(product.items.map((i) => i.text)).toEqual([expect.stringContaining('nightly backup job')]);
    expect(createTunedRecall(DEFAULT_TUNING).recall({ channelDirs: [tmp.dir], ...input }).items).toEqual(product.items);
    const strict = createTunedRecall({ ...DEFAULT_TUNING, gateMin: 1e9, rareWordMin: 1e9 }).recall({ channelDirs: [tmp.dir], ...input });
    expect(strict.items).toEqual([]);
  });
});
