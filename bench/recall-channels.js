#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * What recall's index of one more channel costs (issue 25: a burst of new channels builds one per
 * channel in the turn worker, and a bot in thousands of channels keeps as many as its budget holds):
 * N channel folders, each with the same generated MEMORY.md of --facts project facts, indexed one
 * after another in one process. Prints the build time per channel (median of --rounds fresh
 * engines, the files' page cache warm) and the heap each channel's index keeps (parsed lines +
 * postings, after a full GC).
 *
 *   npm run build && node --expose-gc bench/recall-channels.js [--channels 300] [--facts 50] [--rounds 5]
 *                                                              [--dist DIR (an earlier build, for a before/after)]
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { generate } = require('./data/gen-project-channel');
const { arg } = require('./args.js');

const root = path.resolve(__dirname, '..');
const distDir = path.resolve(arg('--dist', path.join(root, 'dist')));
const channels = Number(arg('--channels', 300));
const facts = Number(arg('--facts', 50));
const rounds = Number(arg('--rounds', 5));
if (typeof global.gc !== 'function') throw new Error('run with node --expose-gc');
const gc = /** @type {() => void} */ (global.gc);

const { createRecall } = require(path.join(distDir, 'recall', 'lexical.js'));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-recall-channels-'));
try {
  generate(path.join(tmp, 'seed'), { facts, seed: 3 });
  const memory = fs.readFileSync(path.join(tmp, 'seed', 'MEMORY.md'));
  const dirs = Array.from({ length: channels }, (_, i) => {
    const dir = path.join(tmp, `c${i}`);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), memory);
    return dir;
  });
  /** Every channel indexed by a fresh engine, in order: the time per channel and what it built. */
  const buildAll = () => {
    const recall = createRecall();
    const t0 = process.hrtime.bigint();
    const kept = dirs.map((dir) => recall.indexOf({ channelDirs: [dir] }));
    return { us: Number(process.hrtime.bigint() - t0) / 1000 / channels, kept, recall };
  };
  // The heap each channel keeps: a first round whose engine and indexes stay referenced until measured.
  gc();
  const base = process.memoryUsage().heapUsed;
  const first = buildAll();
  gc();
  const heapKb = (process.memoryUsage().heapUsed - base) / 1024 / channels;
  if (first.kept.length !== channels) throw new Error('an index is missing');
  const perChannelUs = [first.us];
  for (let r = 1; r < rounds; r++) perChannelUs.push(buildAll().us);
  perChannelUs.sort((a, b) => a - b);
  const median = perChannelUs[Math.floor(perChannelUs.length / 2)];
  console.log(`${new Date().toISOString().slice(0, 16)} UTC, Node ${process.version}, ${distDir === path.join(root, 'dist') ? 'dist' : distDir}`);
  console.log(
    `${channels} channels × MEMORY.md of ${facts} facts (${memory.length} bytes): index build ${median.toFixed(0)} µs per channel (median of ${rounds}), heap kept ${heapKb.toFixed(1)} KB per channel`,
  );
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
