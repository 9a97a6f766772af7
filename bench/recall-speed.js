#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Recall speed on a generated project channel of about 1 MB (MEMORY.md + HISTORY.md):
 *  1. in process (dist/memory/recall.js): cold parse (first recall), warm latency per query over
 *     2,000 queries (median, p95, max), RSS before/after;
 *  2. the command: 2,000 queries through `minutes recall --queries` in one process, wall time
 *     including start-up (goal < 10 s), and which heavy modules it loaded (must be none of
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
const onTopic = fs.readFileSync(path.join(channel, 'questions.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).query);
const chat = fs.readFileSync(path.join(__dirname, 'data', 'abstention', 'chat-lines.txt'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
const queries = [];
for (let k = 0; queries.length < 2000; k++) queries.push(k % 4 === 3 ? chat[k % chat.length] : onTopic[k % onTopic.length]);
const qfile = path.join(outDir, 'queries.jsonl');
fs.writeFileSync(qfile, queries.map((q, k) => JSON.stringify({ id: `q${k}`, query: q })).join('\n') + '\n');

const { createRecall } = require(path.join(dist, 'memory', 'recall.js'));
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

t0 = process.hrtime.bigint();
const r = spawnSync(process.execPath, [bin, 'recall', '--channel-dir', channel, '--queries', qfile, '--now', '2026-11-21'], { encoding: 'utf8', maxBuffer: 1 << 28 });
const cliMs = Number(process.hrtime.bigint() - t0) / 1e6;
if (r.status !== 0) throw new Error(`recall command failed: ${r.stderr}`);
const outLines = r.stdout.split('\n').filter(Boolean).length;
const probe = spawnSync(process.execPath, ['-e',
  `require(${JSON.stringify(path.join(dist, 'cli', 'commands', 'recall.js'))});` +
  `const m=Object.keys(require.cache);console.log(JSON.stringify({n:m.length,heavy:m.filter(x=>/node_modules\\/(discord\\.js|@discordjs|@anthropic-ai|openai)\\//.test(x)).length}))`], { encoding: 'utf8' });

const mb = (/** @type {number} */ b) => (b / 1048576).toFixed(1);
console.log(`# recall speed, ${new Date().toISOString().slice(0, 10)}, node ${process.version}; generated channel: ${facts} facts, ${mb(size)} MB (MEMORY.md + HISTORY.md + SESSION.md)`);
console.log('\n| measure | value |\n|---|---:|');
console.log(`| cold: first recall (stat + read + parse + index) | ${coldMs.toFixed(1)} ms |`);
console.log(`| warm: median per query (2,000 queries) | ${pct(0.5).toFixed(3)} ms |`);
console.log(`| warm: p95 per query | ${pct(0.95).toFixed(3)} ms |`);
console.log(`| warm: max per query | ${lat[lat.length - 1].toFixed(3)} ms |`);
console.log(`| queries that recalled something | ${recalled}/${queries.length} |`);
console.log(`| RSS before / after cold / after warm | ${mb(rss0)} / ${mb(rssCold)} / ${mb(rssWarm)} MB |`);
console.log(`| CLI: 2,000 queries via --queries, wall incl. start-up | ${(cliMs / 1000).toFixed(2)} s (${outLines} JSON lines) |`);
console.log(`| CLI: modules loaded by the recall command / Discord or model SDK among them | ${probe.stdout.trim()} |`);
