#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Recall quality on the LoCoMo dev set (bench/data/locomo-dev, CC BY-NC 4.0, see its README).
 *
 * For each conversation folder it runs the real command
 *   node bin/minutes.js recall --channel-dir <conv> --queries <q.jsonl> --now <asked_after> --budget-chars N
 * (default item cap) at 1,000 / 2,000 / 4,000 characters, scores the output with the benchmark's
 * own score.py, and prints the scorer's table beside score.py's plain BM25 baseline at the same budgets.
 *
 * Usage: npm run bench:recall   (= npm run build && node bench/recall-quality.js)
 *   options: --budgets 1000 2000 4000  --max-items N  --out DIR (default bench/out/recall)  --no-bm25
 *            --semantic off|local|both (default both: words only, then words and meaning; vectors
 *            cached under bench/out/vectors)
 * Needs python3 (standard library only). Reads only bench/data; writes only under --out.
 */
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const dataDir = path.join(root, 'bench', 'data', 'locomo-dev');
const channelsDir = path.join(dataDir, 'channels');
const scorer = path.join(dataDir, 'score.py');
const bin = process.env.MINUTES_BIN || path.join(root, 'bin', 'minutes.js');

/** @param {string} name @param {string[]} dflt */
function argList(name, dflt) {
  const i = process.argv.indexOf(name);
  if (i < 0) return dflt;
  const out = [];
  for (let k = i + 1; k < process.argv.length && !process.argv[k].startsWith('--'); k++) out.push(process.argv[k]);
  return out;
}
const budgets = argList('--budgets', ['1000', '2000', '4000']);
const maxItems = argList('--max-items', [])[0];
const outDir = path.resolve(argList('--out', [path.join(root, 'bench', 'out', 'recall')])[0]);
const withBm25 = !process.argv.includes('--no-bm25');
const semanticArg = argList('--semantic', ['both'])[0];
const modes = semanticArg === 'both' ? ['off', 'local'] : [semanticArg];
const vectorCache = path.join(root, 'bench', 'out', 'vectors');
fs.mkdirSync(outDir, { recursive: true });

const convs = fs
  .readdirSync(channelsDir)
  .filter((d) => fs.existsSync(path.join(channelsDir, d, 'questions.jsonl')))
  .sort();
console.log(`# recall quality, LoCoMo dev (${convs.join(', ')}), ${new Date().toISOString().slice(0, 10)}`);
console.log(
  `# command: node bin/minutes.js recall --channel-dir <conv> --queries <file> --now <asked_after> --budget-chars N${maxItems ? ' --max-items ' + maxItems : ''}`,
);

for (const mode of modes)
  for (const budget of budgets) {
    const recallFile = path.join(outDir, `minutes-${mode}-${budget}.jsonl`);
    const lines = [];
    let wall = 0;
    for (const conv of convs) {
      const dir = path.join(channelsDir, conv);
      const qs = fs
        .readFileSync(path.join(dir, 'questions.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const qfile = path.join(outDir, `${conv}.queries.jsonl`);
      fs.writeFileSync(qfile, qs.map((q) => JSON.stringify({ id: q.id, query: q.question })).join('\n') + '\n');
      const now = qs[0] && qs[0].asked_after;
      const args = [
        bin,
        'recall',
        '--channel-dir',
        dir,
        '--queries',
        qfile,
        '--budget-chars',
        String(budget),
        '--semantic',
        mode,
        '--vector-cache',
        vectorCache,
      ];
      if (now) args.push('--now', now);
      if (maxItems) args.push('--max-items', maxItems);
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
      wall += Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.status !== 0) {
        process.stderr.write(r.stderr);
        throw new Error(`recall exited with ${r.status} on ${conv}`);
      }
      for (const line of r.stdout.split('\n').filter(Boolean)) {
        const o = JSON.parse(line);
        if (o.text.length > Number(budget)) throw new Error(`budget exceeded for ${o.id}: ${o.text.length}`);
        lines.push(JSON.stringify({ id: o.id, recalled_text: o.text }));
      }
    }
    fs.writeFileSync(recallFile, lines.join('\n') + '\n');
    const s = spawnSync(
      'python3',
      [scorer, channelsDir, '--recall', recallFile, '--per-question', path.join(outDir, `minutes-${mode}-${budget}.per-question.jsonl`)],
      { encoding: 'utf8' },
    );
    if (s.status !== 0) throw new Error(`score.py failed: ${s.stderr}`);
    console.log(
      `\n## Minutes recall, --semantic ${mode}, budget ${budget} chars, ${maxItems ? 'max ' + maxItems + ' items' : 'default item cap'} (CLI wall ${Math.round(wall)} ms for ${lines.length} queries)`,
    );
    process.stdout.write(
      s.stdout
        .split('\n')
        .filter((l) => !/^\s*$/.test(l) && !/^Scoring|^\d+ channel/.test(l))
        .map((l) => l + '\n')
        .join(''),
    );
  }

if (withBm25) {
  const s = spawnSync('python3', [scorer, channelsDir, '--bm25', '--budgets', ...budgets], { encoding: 'utf8' });
  if (s.status !== 0) throw new Error(`score.py --bm25 failed: ${s.stderr}`);
  console.log('\n## score.py BM25 baseline (python3 bench/data/locomo-dev/score.py bench/data/locomo-dev/channels --bm25 --budgets ' + budgets.join(' ') + ')');
  process.stdout.write(s.stdout);
  const st = spawnSync('python3', [scorer, channelsDir, '--bm25', '--stem', '--budgets', ...budgets], { encoding: 'utf8' });
  if (st.status !== 0) throw new Error(`score.py --bm25 --stem failed: ${st.stderr}`);
  console.log('\n## score.py BM25 with stemming (… --bm25 --stem --budgets ' + budgets.join(' ') + ')');
  process.stdout.write(st.stdout);
}
