#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Dev harness for recall tuning: the same recall code in process (dist/), with tuning overrides, on
 * the LoCoMo dev set, scored by score.py. Faster than the CLI loop and takes a grid.
 *
 * Usage: npm run build && node bench/recall-dev.js [--budgets 1000 2000 4000] [--tuning JSON ...]
 *   Each --tuning JSON (partial RecallTuning) is one configuration; '{}' = defaults.
 *   --cats prints the per-category line too. --semantic off|local (default off here: the tuning grid
 *   of the lexical scorer; `local` adds the packaged sentence model, vectors cached under
 *   bench/out/vectors). Writes only under bench/out.
 */
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { pairedBootstrap } = require('./rng');
const root = path.resolve(__dirname, '..');
const { createTunedRecall } = require(path.join(root, 'dist', 'recall', 'lexical.js'));
const { DEFAULT_TUNING } = require(path.join(root, 'dist', 'recall', 'tuning.js'));
const { createRecallService } = require(path.join(root, 'dist', 'recall', 'service.js'));
const { CandidateVectors } = require(path.join(root, 'dist', 'recall', 'vectors.js'));
const { VectorCache } = require(path.join(root, 'dist', 'embed', 'vectorCache.js'));
const { WorkerEmbedder } = require(path.join(root, 'dist', 'embed', 'workerEmbedder.js'));
const { silentLogger } = require(path.join(root, 'dist', 'log', 'logger.js'));
const channelsDir = path.join(root, 'bench', 'data', 'locomo-dev', 'channels');
const scorer = path.join(root, 'bench', 'data', 'locomo-dev', 'score.py');
const outDir = path.join(root, 'bench', 'out', 'recall-dev');
fs.mkdirSync(outDir, { recursive: true });

const argv = process.argv.slice(2);
/** @type {string[]} */ let budgets = ['1000', '2000', '4000'];
/** @type {object[]} */ const tunings = [];
const cats = argv.includes('--cats');
const semIdx = argv.indexOf('--semantic');
const semantic = semIdx >= 0 ? argv[semIdx + 1] : 'off';
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--budgets') {
    budgets = [];
    while (argv[i + 1] && !argv[i + 1].startsWith('--')) budgets.push(argv[++i]);
  } else if (argv[i] === '--tuning') tunings.push(JSON.parse(argv[++i]));
}
if (tunings.length === 0) tunings.push({});

const convs = fs
  .readdirSync(channelsDir)
  .filter((d) => fs.existsSync(path.join(channelsDir, d, 'questions.jsonl')))
  .sort();
const qsets = convs.map((c) => ({
  dir: path.join(channelsDir, c),
  qs: fs
    .readFileSync(path.join(channelsDir, c, 'questions.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l)),
}));

/**
 * Paired bootstrap (2,000 resamples of the questions, fixed seed) of the mean recall difference
 * against the first configuration: `[lo, hi]` is its 95 % interval. A rule whose interval includes
 * zero changed too few questions to tell from noise.
 * @param {string} baseFile @param {string} file
 */
function interval(baseFile, file) {
  const read = (/** @type {string} */ f) =>
    new Map(
      fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .map((q) => [q.id, q.recall]),
    );
  const a = read(baseFile);
  const b = read(file);
  const d = Array.from(a.keys())
    .filter((k) => typeof a.get(k) === 'number' && typeof b.get(k) === 'number')
    .map((k) => b.get(k) - a.get(k));
  const [m, lo, hi] = pairedBootstrap(d);
  const f = (/** @type {number} */ x) => (x >= 0 ? '+' : '') + x.toFixed(3);
  return `(${f(m)} [${f(lo)}, ${f(hi)}])`;
}

async function main() {
  const logger = silentLogger();
  const embedder = semantic === 'local' ? new WorkerEmbedder({ logger }) : undefined;
  const cache = embedder ? new VectorCache({ dir: path.join(root, 'bench', 'out', 'vectors'), modelId: embedder.id, logger }) : undefined;
  const vectors = embedder ? new CandidateVectors({ embedder, cache, logger }) : undefined;
  for (const [ti, tuning] of tunings.entries()) {
    const row = [];
    for (const budget of budgets) {
      const lines = [];
      for (const { dir, qs } of qsets) {
        const service = createRecallService({
          lexical: createTunedRecall({ ...DEFAULT_TUNING, ...tuning }),
          embedder,
          vectors,
          logger,
          queryTimeoutMs: 60_000,
        });
        await service.indexAll({ channelDirs: [dir] });
        for (const q of qs) {
          const res = await service.recall({ channelDirs: [dir], query: q.question, now: new Date(`${q.asked_after}T00:00:00Z`), budgetChars: Number(budget) });
          lines.push(JSON.stringify({ id: q.id, recalled_text: res.text }));
        }
      }
      const file = path.join(outDir, `run-${budget}.jsonl`);
      fs.writeFileSync(file, lines.join('\n') + '\n');
      const pq = path.join(outDir, `run-${ti}-${budget}.pq.jsonl`);
      const s = spawnSync('python3', [scorer, channelsDir, '--recall', file, '--per-question', pq], { encoding: 'utf8' });
      const out = s.stdout.split('\n');
      const overall = out.find((l) => /^overall\s/.test(l));
      let cell = overall ? overall.trim().split(/\s+/)[2] : '?';
      if (ti > 0) cell += ` ${interval(path.join(outDir, `run-0-${budget}.pq.jsonl`), pq)}`;
      row.push(cell);
      if (cats) for (const l of out) if (/^\d /.test(l)) console.log(`   ${budget} ${l}`);
    }
    console.log(`${row.join(' / ')}  ${JSON.stringify(tuning)}`);
  }
  if (embedder) await embedder.close();
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
