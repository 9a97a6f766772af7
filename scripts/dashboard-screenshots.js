#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Screenshots of the dashboard's main pages for the README and docs/cli.md (docs/dashboard-*.png),
 * taken with Debian's chromium through playwright-core over the tests' generated data root (with
 * #backend's context.json and a log of replies in the days before now): the home page, a channel,
 * a condensation and a search at 1100 px, the channel on a 390 px phone, the home page dark.
 * Usage: npm run build && node scripts/dashboard-screenshots.js   (needs /usr/bin/chromium)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');
const { generateDataRoot } = require('../test/helpers/dashboardData.js');
const { CHROMIUM_ARGS } = require('../test/helpers/chromiumArgs.js');
const { createDashboard } = require('../dist/dashboard/server.js');
const { buildRecallService } = require('../dist/recall/service.js');
const { silentLogger } = require('../dist/log/logger.js');

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-shots-'));
  const ids = generateDataRoot(path.join(tmp, 'root'), { condensations: 8, entries: 6, knowledge: true });
  const recall = buildRecallService({ semantic: { mode: 'off', cacheDir: '' }, logger: silentLogger() });
  const dash = createDashboard({ root: path.join(tmp, 'root'), host: '127.0.0.1', port: 0, recall });
  const url = await dash.listen();
  const ctx = await chromium.launchPersistentContext(path.join(tmp, 'profile'), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1100, height: 800 },
    args: [...CHROMIUM_ARGS],
  });
  const page = await ctx.newPage();
  const out = path.join(__dirname, '..', 'docs');
  const shots = [
    { name: 'home', p: '', full: true },
    { name: 'channel', p: `channel/${ids.channelKey}`, full: false },
    { name: 'condensation', p: `channel/${ids.channelKey}/c/2025-02-01-database-again`, full: true },
    { name: 'search', p: `search?q=${encodeURIComponent('which database does the orders service use')}`, full: true },
    { name: 'channel-phone', p: `channel/${ids.channelKey}`, full: false, width: 390, height: 844 },
    { name: 'home-dark', p: '', full: true, dark: true },
  ];
  for (const s of shots) {
    await page.setViewportSize({ width: s.width ?? 1100, height: s.height ?? 800 });
    await page.emulateMedia({ colorScheme: s.dark ? 'dark' : 'light' });
    await page.goto(url + s.p);
    await page.screenshot({ path: path.join(out, `dashboard-${s.name}.png`), fullPage: s.full });
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
