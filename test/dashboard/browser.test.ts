import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { generateDataRoot } from '../helpers/dashboardData';
import { makeTmpDir } from '../helpers/tmp';
import { launchChromium, describeWithChromium } from './chromium';
import { startDashboard } from './helpers';

/**
 * The dashboard in a real browser: Debian's chromium driven by playwright-core (no browser
 * download). Without chromium a developer's run skips with one line; with CI=true it must run.
 */
const describeBrowser = describeWithChromium('dashboard browser tests');

describeBrowser('dashboard in chromium', () => {
  jest.setTimeout(60_000);
  let tmp: ReturnType<typeof makeTmpDir>;
  let profile: string;
  let ids: ReturnType<typeof generateDataRoot>;
  let dash: Awaited<ReturnType<typeof startDashboard>>;
  let browser: BrowserContext;
  let page: Page;
  const dialogs: string[] = [];

  beforeAll(async () => {
    tmp = makeTmpDir('minutes-dash-browser-');
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-chromium-'));
    ids = generateDataRoot(path.join(tmp.dir, 'root'), { condensations: 5, entries: 20 });
    dash = await startDashboard(path.join(tmp.dir, 'root'));
    browser = await launchChromium(profile);
    page = await browser.newPage();
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
  });
  afterAll(async () => {
    await browser?.close();
    await dash?.close();
    tmp?.cleanup();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });

  const pwned = () => page.evaluate(() => (globalThis as unknown as { __pwned?: unknown }).__pwned);

  it('navigates home → channel → condensation → back', async () => {
    await page.goto(dash.url);
    await page.getByRole('link', { name: '#backend', exact: true }).click();
    await page.waitForURL(`**/channel/${ids.channelKey}`);
    expect(await page.locator('main > h1').textContent()).toBe('#backend');
    await page.locator('#timeline ol').getByRole('link', { name: 'Postgres for orders' }).first().click();
    await page.waitForURL('**/c/2025-03-05-postgres');
    expect(await page.locator('main > h1').textContent()).toBe('Postgres for orders');
    expect(await page.locator('.md').first().textContent()).toContain('Postgres 16');
    await page.getByRole('link', { name: '← back to the channel' }).click();
    await page.waitForURL(`**/channel/${ids.channelKey}`);
    expect(await page.locator('main > h1').textContent()).toBe('#backend');
    // The browser's own back button works too (plain pages, no client routing).
    await page.goBack();
    await page.waitForURL('**/c/2025-03-05-postgres');
    await page.goBack();
    await page.goBack();
    await page.waitForURL(dash.url);
    expect(await page.locator('main > h1').textContent()).toBe('Channels');
  });

  it('shows the supersession chain on the timeline, replaced ones struck through with what replaced them, and follows it', async () => {
    await page.goto(`${dash.url}channel/${ids.channelKey}`);
    const items = page.locator('#timeline ol > li').filter({ hasText: /Database|Postgres/ });
    expect(await items.allTextContents()).toEqual([
      '2025-03-05 Postgres for orders proposed',
      '2025-02-01 Database revisited superseded replaced by Postgres for orders (2025-03-05)',
      '2025-01-10 Database choice superseded replaced by Database revisited (2025-02-01)',
    ]);
    expect(await items.locator('del').count()).toBe(2);
    // The picture: one arrow per replacement, and each mark a link named for a screen reader.
    expect(await page.locator('#timeline figure > svg path.tl-arrow').count()).toBe(2);
    await page.getByRole('link', { name: '2025-02-01 Database revisited: superseded, replaced by Postgres for orders' }).click();
    await page.waitForURL('**/c/2025-02-01-database-again');
    await page.locator('section').filter({ hasText: 'Superseded by' }).getByRole('link').click();
    await page.waitForURL('**/c/2025-03-05-postgres');
  });

  it('search from the header box shows recall scores and condensation hits', async () => {
    await page.goto(dash.url);
    await page.getByLabel('search', { exact: true }).fill('which database does the orders service use');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/search?q=*');
    expect(await page.locator('td.score').count()).toBeGreaterThan(0);
    expect(await page.textContent('body')).toContain('Postgres 16');
  });

  it('planted <script>, onerror and javascript: in MEMORY.md, CONTEXT.md and a condensation do not run', async () => {
    for (const p of [`channel/${ids.channelKey}`, `channel/${ids.channelKey}/c/2025-03-09-planted`, 'search?q=planted+click+pwned']) {
      await page.goto(dash.url + p);
      await page.waitForLoadState('load');
      expect(await pwned()).toBeUndefined();
      expect(await page.textContent('body')).toContain('window.__pwned=1');
      const hrefs = await page.locator('a').evaluateAll((as) => as.map((a) => (a as unknown as { href: string }).href));
      expect(hrefs.filter((h) => /^javascript:/i.test(h))).toEqual([]);
      // Clicking what looks like a link in the planted text does nothing either.
      const raw = page.getByText('raw link');
      if (await raw.count()) await raw.first().click();
      expect(await pwned()).toBeUndefined();
    }
    expect(dialogs).toEqual([]);
  });

  it('with a token, the browser gets 401 without it and the page with ?token= (then by cookie, the token gone from the address bar)', async () => {
    const token = 'b7e2c9a41f0d3e8a6c5b4d2e1f0a9b8c';
    const d = await startDashboard(path.join(tmp.dir, 'root'), token);
    try {
      const r = await page.goto(d.url);
      expect(r?.status()).toBe(401);
      expect((await page.goto(`${d.url}?token=${token}`))?.status()).toBe(200);
      // The token left the address bar once the cookie was set.
      expect(page.url()).toBe(d.url);
      expect((await page.goto(`${d.url}channel/${ids.channelKey}`))?.status()).toBe(200);
    } finally {
      await d.close();
    }
  });
});
