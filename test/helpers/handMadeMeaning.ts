import fs from 'node:fs';
import fc from 'fast-check';
import path from 'node:path';
import type { Index } from '../../src/recall/types';
import type { DenseView } from '../../src/recall/vectors';
import { makeTmpDir } from './tmp';

/**
 * For tests of recall's gates: a small orders channel in a fresh temp folder per test, and meaning as
 * given by hand (cosines on a scale of mean 0, sd 1, so the embedder's units are the cosines themselves).
 */
export const ORDERS_LINES = [
  '- [m-aa0001] The orders service stores its data in Postgres 16 on db-1. [from: #ops, 2026-11-01]',
  '- [m-aa0002] Releases go out from the release branch on Tuesdays. [from: #ops, 2026-11-02]',
  '- [m-aa0003] Buildkite runs the nightly backup job for the orders database. [from: #ops, 2026-11-03]',
  '- [m-aa0004] Order writes must stay under 50 ms at p99. [from: #dev, 2026-11-04]',
];

/** Registers the folder's setup and cleanup for each test of the file; the function gives its path. */
export function ordersChannelPerTest(): () => string {
  let tmp: ReturnType<typeof makeTmpDir>;
  let chan = '';
  beforeEach(() => {
    tmp = makeTmpDir();
    chan = path.join(tmp.dir, 'chan');
    fs.mkdirSync(chan, { recursive: true });
    fs.writeFileSync(path.join(chan, 'MEMORY.md'), ['# Channel Memory', '', '## Facts', ...ORDERS_LINES].join('\n') + '\n');
  });
  afterEach(() => tmp.cleanup());
  return () => chan;
}

/** Meaning as given: the best line (id 0 unless said), the message against the chat and technical nulls, the channel's bar. */
export function handMadeView(o: { best: number; chat: number; tech: number; bar: number; bestId?: number }): (index: Index) => DenseView {
  return (index) => {
    const cos = new Float32Array(index.n).fill(-0.5);
    cos[o.bestId ?? 0] = o.best;
    // On this scale (mean 0, sd 1, no common part) the technical comparison is the plain difference.
    return { cos, chat: o.chat, tech: o.tech, techGap: () => o.tech - o.best, calibration: { mean: 0, sd: 1 }, chatBar: () => o.bar };
  };
}

/** What property tests build messages from: the orders channel's words, everyday ones, and oddities. */
export const ORDERS_WORDS = [
  'postgres',
  'orders',
  'release',
  'tuesday',
  'buildkite',
  'backup',
  'nightly',
  'writes',
  'the',
  'what',
  'hello',
  'thanks',
  'p99',
  'db-1',
  'lunch',
  '??',
];

/** Any hand-made meaning (handMadeView's figures), in null deviations from −1 to 3. */
export function meaningFigures(): fc.Arbitrary<{ best: number; chat: number; tech: number; bar: number }> {
  const figure = fc.double({ min: -1, max: 3, noNaN: true });
  return fc.record({ best: figure, chat: figure, tech: figure, bar: figure });
}
