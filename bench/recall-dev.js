#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Dev harness for recall tuning: the same recall code in process (dist/), with tuning overrides, on
 * the LoCoMo dev set, scored by score.py. Faster than the CLI loop and takes a grid.
 *
 * Usage: npm run build && node bench/recall-dev.js [--budgets 1000 2000 4000] [--tuning JSON ...]
 *   Each --tuning JSON (partial RecallTuning) is one configuration; '{}' = defaults.
 *   --cats prints the per-category line too. Writes only under bench/out/recall-dev.
 */
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const root = path.resolve(__dirname, '..');
const { createRecall } = require(path.join(root, 'dist', 'memory', 'recall.js'));
const channelsDir = path.join(root, 'bench', 'data', 'locomo-dev', 'channels');
const scorer = path.join(root, 'bench', 'data', 'locomo-dev', 'score.py');
const outDir = path.join(root, 'bench', 'out', 'recall-dev');
fs.mkdirSync(outDir, { recursive: true });

const argv = process.argv.slice(2);
/** @type {string[]} */ let budgets = ['1000', '2000', '4000'];
/** @type {object[]} */ const tunings = [];
const cats = argv.includes('--cats');
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--budgets') {
    budgets = [];
    while (argv[i + 1] && !argv[i + 1].startsWith('--')) budgets.push(argv[++i]);
  } else if (argv[i] === '--tuning') tunings.push(JSON.parse(argv[++i]));
}
if (tunings.length === 0) tunings.push({});

const convs = fs.readdirSync(channelsDir).filter((d) => fs.existsSync(path.join(channelsDir, d, 'questions.jsonl'))).sort();
const qsets = convs.map((c) => ({
  dir: path.join(channelsDir, c),
  qs: fs.readFileSync(path.join(channelsDir, c, 'questions.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)),
}));

for (const tuning of tunings) {
  const row = [];
  for (const budget of budgets) {
    const lines = [];
    for (const { dir, qs } of qsets) {
      const r = createRecall({ tuning });
      for (const q of qs) {
        const res = r.recall({ channelDirs: [dir], query: q.question, now: new Date(`${q.asked_after}T00:00:00Z`), budgetChars: Number(budget) });
        lines.push(JSON.stringify({ id: q.id, recalled_text: res.text }));
      }
    }
    const file = path.join(outDir, `run-${budget}.jsonl`);
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const s = spawnSync('python3', [scorer, channelsDir, '--recall', file, '--per-question', path.join(outDir, `run-${budget}.pq.jsonl`)], { encoding: 'utf8' });
    const out = s.stdout.split('\n');
    const overall = out.find((l) => /^overall\s/.test(l));
    row.push(overall ? overall.trim().split(/\s+/)[2] : '?');
    if (cats) for (const l of out) if (/^\d /.test(l)) console.log(`   ${budget} ${l}`);
  }
  console.log(`${row.join(' / ')}  ${JSON.stringify(tuning)}`);
}
