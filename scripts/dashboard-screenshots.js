#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Screenshots of the dashboard's main pages for the README (docs/dashboard-*.png), taken with
 * Debian's chromium through playwright-core over the tests' generated data root.
 * Usage: npm run build && node scripts/dashboard-screenshots.js   (needs /usr/bin/chromium)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');
const { generateDataRoot } = require('../test/helpers/dashboardData.js');
const { createDashboard } = require('../dist/dashboard/server.js');
const { buildRecallService } = require('../dist/recall/service.js');
const { silentLogger } = require('../dist/log/logger.js');

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-shots-'));
  const ids = generateDataRoot(path.join(tmp, 'root'), { condensations: 8, entries: 6 });
  const recall = buildRecallService({ semantic: { mode: 'off', cacheDir: '' }, logger: silentLogger() });
  const dash = createDashboard({ root: path.join(tmp, 'root'), host: '127.0.0.1', port: 0, recall });
  const url = await dash.listen();
  const ctx = await chromium.launchPersistentContext(path.join(tmp, 'profile'), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1100, height: 800 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = await ctx.newPage();
  const out = path.join(__dirname, '..', 'docs');
  for (const [name, p] of [
    ['home', ''],
    ['channel', `channel/${ids.channelKey}`],
    ['condensation', `channel/${ids.channelKey}/c/2025-02-01-database-again`],
    ['search', `search?q=${encodeURIComponent('which database does the orders service use')}`],
  ]) {
    await page.goto(url + p);
    await page.screenshot({ path: path.join(out, `dashboard-${name}.png`), fullPage: name !== 'channel' });
  }
  await ctx.close();
  await dash.close();
  await recall.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
