#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Recall speed on a generated project channel of about 1 MB (MEMORY.md + HISTORY.md):
 *  1. in process, words only (dist/recall/lexical.js): cold parse (first recall), warm latency per
 *     query over 2,000 queries (median, p95, max), RSS before/after;
 *  2. in process, words and meaning (the default: the packaged model in its worker thread): indexing
 *     (every line embedded, lines per second), then warm latency per query, the message's own
 *     embedding included, and RSS with the model loaded;
 *  3. the command: 2,000 queries through `minutes recall --queries` in one process, wall time
 *     including start-up, with --semantic off (goal < 5 ms per query) and with the default on a warm
 *     vector cache (goal < 30 ms per query), and which heavy modules it loaded (must be none of
 *     discord.js / model SDKs).
 *
 * Usage: npm run bench:recall-speed   (= npm run build && node bench/recall-speed.js) [--facts 5000]
 */
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { generate } = require('./data/gen-project-channel');

const root = path.resolve(__dirname, '..');
const dist = path.resolve(process.env.MINUTES_DIST || path.join(root, 'dist'));
const bin = process.env.MINUTES_BIN || path.join(root, 'bin', 'minutes.js');
const outDir = path.join(root, 'bench', 'out', 'speed');
const i = process.argv.indexOf('--facts');
const facts = i > 0 ? Number(process.argv[i + 1]) : 5000;
fs.rmSync(outDir, { recursive: true, force: true });
const channel = path.join(outDir, 'project');
generate(channel, { facts, seed: 7 });
const size = ['MEMORY.md', 'HISTORY.md', 'SESSION.md'].reduce((a, f) => a + fs.statSync(path.join(channel, f)).size, 0);

// 2,000 queries: the on-topic questions, cycled, plus everyday chat lines (which abstain).
const onTopic = fs
  .readFileSync(path.join(channel, 'questions.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l).query);
const chat = fs
  .readFileSync(path.join(__dirname, 'data', 'abstention', 'chat-lines.txt'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const queries = [];
for (let k = 0; queries.length < 2000; k++) queries.push(k % 4 === 3 ? chat[k % chat.length] : onTopic[k % onTopic.length]);
const qfile = path.join(outDir, 'queries.jsonl');
fs.writeFileSync(qfile, queries.map((q, k) => JSON.stringify({ id: `q${k}`, query: q })).join('\n') + '\n');

const { createRecall } = require(path.join(dist, 'recall', 'lexical.js'));
const now = new Date('2026-11-21T00:00:00Z');
const rss0 = process.memoryUsage().rss;
const rc = createRecall();
let t0 = process.hrtime.bigint();
rc.recall({ channelDirs: [channel], query: queries[0], now });
const coldMs = Number(process.hrtime.bigint() - t0) / 1e6;
const rssCold = process.memoryUsage().rss;
// Steady state: one untimed pass lets the JIT settle; the timed pass is what a running bot sees.
for (const q of queries.slice(0, 500)) rc.recall({ channelDirs: [channel], query: q, now });
const lat = [];
let recalled = 0;
for (const q of queries) {
  t0 = process.hrtime.bigint();
  const r = rc.recall({ channelDirs: [channel], query: q, now });
  lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
  if (r.text) recalled++;
}
lat.sort((a, b) => a - b);
const pct = (/** @type {number} */ p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
const rssWarm = process.memoryUsage().rss;

const vectorCache = path.join(outDir, 'vectors');
/** @param {string} mode */
function cli(mode) {
  const t = process.hrtime.bigint();
  const r = spawnSync(
    process.execPath,
    [bin, 'recall', '--channel-dir', channel, '--queries', qfile, '--now', '2026-11-21', '--semantic', mode, '--vector-cache', vectorCache],
    { encoding: 'utf8', maxBuffer: 1 << 28 },
  );
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`recall command failed: ${r.stderr}`);
  return { ms, lines: r.stdout.split('\n').filter(Boolean).length };
}
const probe = spawnSync(
  process.execPath,
  [
    '-e',
    `require(${JSON.stringify(path.join(dist, 'cli', 'commands', 'recall.js'))});` +
      `const m=Object.keys(require.cache);console.log(JSON.stringify({n:m.length,heavy:m.filter(x=>/node_modules\\/(discord\\.js|@discordjs|@anthropic-ai|openai)\\//.test(x)).length}))`,
  ],
  { encoding: 'utf8' },
);

async function semantic() {
  const { createRecallService } = require(path.join(dist, 'recall', 'service.js'));
  const { CandidateVectors } = require(path.join(dist, 'recall', 'vectors.js'));
  const { VectorCache } = require(path.join(dist, 'embed', 'vectorCache.js'));
  const { WorkerEmbedder } = require(path.join(dist, 'embed', 'workerEmbedder.js'));
  const { silentLogger } = require(path.join(dist, 'log', 'logger.js'));
  const logger = silentLogger();
  const embedder = new WorkerEmbedder({ logger });
  const cache = new VectorCache({ dir: vectorCache, modelId: embedder.id, logger });
  const vectors = new CandidateVectors({ embedder, cache, logger });
  const lexical = createRecall();
  const svc = createRecallService({ lexical, embedder, vectors, logger, queryTimeoutMs: 60_000 });
  const lines = lexical.indexOf({ channelDirs: [channel] }).n;
  let t = process.hrtime.bigint();
  await svc.indexAll({ channelDirs: [channel] });
  const indexMs = Number(process.hrtime.bigint() - t) / 1e6;
  for (const q of queries.slice(0, 200)) await svc.recall({ channelDirs: [channel], query: q, now });
  const l = [];
  let spoke = 0;
  for (const q of queries) {
    t = process.hrtime.bigint();
    const res = await svc.recall({ channelDirs: [channel], query: q, now });
    l.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (res.text) spoke++;
  }
  l.sort((a, b) => a - b);
  const rss = process.memoryUsage().rss;
  await svc.close();
  return { lines, indexMs, p50: l[Math.floor(0.5 * l.length)], p95: l[Math.floor(0.95 * l.length)], max: l[l.length - 1], spoke, rss };
}

async function main() {
  const sem = await semantic();
  const off = cli('off');
  const local = cli('local');
  const mb = (/** @type {number} */ b) => (b / 1048576).toFixed(1);
  console.log(
    `# recall speed, ${new Date().toISOString().slice(0, 10)}, node ${process.version}; generated channel: ${facts} facts, ${mb(size)} MB (MEMORY.md + HISTORY.md + SESSION.md)`,
  );
  console.log('\n| measure | value |\n|---|---:|');
  console.log(`| cold: first recall (stat + read + parse + index) | ${coldMs.toFixed(1)} ms |`);
  console.log(`| words only, warm: median per query (2,000 queries) | ${pct(0.5).toFixed(3)} ms |`);
  console.log(`| words only, warm: p95 per query | ${pct(0.95).toFixed(3)} ms |`);
  console.log(`| words only, warm: max per query | ${lat[lat.length - 1].toFixed(3)} ms |`);
  console.log(`| words only: queries that recalled something | ${recalled}/${queries.length} |`);
  console.log(`| words only: RSS before / after cold / after warm | ${mb(rss0)} / ${mb(rssCold)} / ${mb(rssWarm)} MB |`);
  console.log(
    `| with meaning: indexing ${sem.lines} lines (model load included) | ${(sem.indexMs / 1000).toFixed(1)} s, ${Math.round(sem.lines / (sem.indexMs / 1000))} lines/s |`,
  );
  console.log(
    `| with meaning, warm: median / p95 / max per query (query embedded in the worker) | ${sem.p50.toFixed(2)} / ${sem.p95.toFixed(2)} / ${sem.max.toFixed(2)} ms |`,
  );
  console.log(`| with meaning: queries that recalled something | ${sem.spoke}/${queries.length} |`);
  console.log(`| with meaning: RSS with the model loaded | ${mb(sem.rss)} MB |`);
  console.log(
    `| CLI --semantic off: 2,000 queries, wall incl. start-up | ${(off.ms / 1000).toFixed(2)} s, ${(off.ms / off.lines).toFixed(2)} ms per query (${off.lines} JSON lines) |`,
  );
  console.log(
    `| CLI default (local), warm vector cache: 2,000 queries, wall incl. start-up | ${(local.ms / 1000).toFixed(2)} s, ${(local.ms / local.lines).toFixed(2)} ms per query (${local.lines} JSON lines) |`,
  );
  console.log(`| CLI: modules loaded by the recall command / Discord or model SDK among them | ${probe.stdout.trim()} |`);
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
