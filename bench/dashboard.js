#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Dashboard speed at size (issue 17): one channel with 300 condensations and 5,000 MEMORY.md
 * entries (plus the small fixtures of the tests: a chain, a private thread, a console channel),
 * served by the compiled dashboard (dist/) on a loopback port. Each page is fetched once to warm
 * up (the "first" column; the server warms its caches at start, timed apart), then N times in a row;
 * prints the median, p95 and max server time per page (wall time of one
 * HTTP request, body included). The target is every page under 200 ms.
 * A second table does the same over a copy of the product's example channel (examples/), the
 * data the page budget (issue 44: under 200 KB and 200 ms a page) is stated on.
 *
 * Usage: npm run bench:dashboard   (= npm run build && node bench/dashboard.js)
 *   options: --runs N (default 20)  --semantic off|local (default off: words only, no model load)
 * Writes only a fresh temp dir (removed at the end).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { generateDataRoot } = require('../test/helpers/dashboardData.js');
const { createDashboard } = require('../dist/dashboard/server.js');
const { buildRecallService } = require('../dist/recall/service.js');
const { silentLogger } = require('../dist/log/logger.js');

function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : def;
}

async function main() {
  const runs = Number(arg('runs', '20'));
  const mode = arg('semantic', 'off');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-bench-dash-'));
  const root = path.join(tmp, 'root');
  const ids = generateDataRoot(root, { condensations: 300, entries: 5000 });
  const recall = buildRecallService({ semantic: { mode, cacheDir: path.join(tmp, 'vectors') }, logger: silentLogger() });
  const dash = createDashboard({ root, host: '127.0.0.1', port: 0, recall });
  const url = await dash.listen();
  const tw = process.hrtime.bigint();
  await dash.warmed();
  const warm = Number(process.hrtime.bigint() - tw) / 1e6;
  const conds = fs.readdirSync(path.join(root, ids.guild, ids.channel, 'condensations'));
  const pages = {
    home: '',
    channel: `channel/${ids.channelKey}`,
    'channel, memory filter': `channel/${ids.channelKey}?filter=widget+7`,
    condensation: `channel/${ids.channelKey}/c/${conds[150].replace(/\.md$/, '')}`,
    'search, one channel': `search?q=${encodeURIComponent('widget 12 rollout decision')}&in=${ids.channelKey}`,
    'search, all channels': `search?q=${encodeURIComponent('which database does the orders service use')}`,
  };
  console.log(`dashboard bench: ${conds.length} condensations, 5,000+ memory entries, ${runs} runs per page, recall semantic=${mode}, node ${process.version}`);
  console.log(`start-up warm-up (audit and parse of every channel, before the first request): ${warm.toFixed(1)} ms`);
  await table(url, pages, runs);
  await dash.close();
  // The example channel, as a newcomer first opens it.
  const examples = path.join(tmp, 'examples');
  fs.cpSync(path.join(__dirname, '..', 'examples'), examples, { recursive: true });
  const ex = createDashboard({ root: examples, host: '127.0.0.1', port: 0, recall });
  const exUrl = await ex.listen();
  await ex.warmed();
  const c = 'channel/local/orders-team';
  console.log(`\nexample data (examples/, ${runs} runs per page; budget: under 200 KB and 200 ms a page)`);
  await table(
    exUrl,
    {
      home: '',
      channel: c,
      'channel as of 2026-11-20': `${c}?at=2026-11-20`,
      'CONTEXT.md': `${c}/context`,
      'HISTORY.md': `${c}/history`,
      condensation: `${c}/c/2026-11-16-orders-database`,
      search: `search?q=${encodeURIComponent('which database do the orders use')}`,
    },
    runs,
  );
  await ex.close();
  await recall.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}

/** Each page fetched once (first), then `runs` times: median, p95 and max wall time, and its size. */
async function table(url, pages, runs) {
  console.log('| page | first ms | median ms | p95 ms | max ms | bytes |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, p] of Object.entries(pages)) {
    let bytes = 0;
    const t0 = process.hrtime.bigint();
    const r0 = await fetch(url + p);
    if (r0.status !== 200) throw new Error(`${name}: HTTP ${r0.status}`);
    await r0.text();
    const first = Number(process.hrtime.bigint() - t0) / 1e6;
    const times = [];
    for (let i = 0; i < runs; i++) {
      const t = process.hrtime.bigint();
      const r = await fetch(url + p);
      bytes = Buffer.byteLength(await r.text());
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    times.sort((a, b) => a - b);
    const q = (f) => times[Math.min(times.length - 1, Math.floor(f * times.length))].toFixed(1);
    console.log(`| ${name} | ${first.toFixed(1)} | ${q(0.5)} | ${q(0.95)} | ${times[times.length - 1].toFixed(1)} | ${bytes} |`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
