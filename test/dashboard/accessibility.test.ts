import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { generateDataRoot } from '../helpers/dashboardData';
import { makeTmpDir } from '../helpers/tmp';
import { silentLogger } from '../../src/log/logger';
import { ChannelStore } from '../../src/memory/store';
import { createPackage } from '../../src/packages/library';
import { buildRecallService } from '../../src/recall/service';
import { launchChromium, describeWithChromium } from './chromium';
import { startDashboard } from './helpers';

/**
 * The dashboard's pages in a real browser (Debian's chromium through playwright-core), checked for
 * what a reader who does not use a mouse, reads on a phone, in the dark, with a screen reader or on
 * paper meets: axe-core's WCAG 2.x A/AA rules at desktop and phone width in both colour schemes, no
 * sideways scrolling at 375 px, the keyboard path through the channel page, print styles, and the
 * channel page's sections. Without chromium a developer's run skips with one line; with CI=true it
 * must run.
 */
const describeBrowser = describeWithChromium('dashboard accessibility tests');

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
const WIDTHS = [1280, 375] as const;
const SCHEMES = ['light', 'dark'] as const;
const CHANNEL_SECTIONS = ['state', 'decisions', 'timeline', 'actions', 'questions', 'playbooks', 'memory', 'recall-health'];

/**
 * The few browser globals the functions run in the page (page.evaluate) use: the project's
 * TypeScript has no DOM library, and these keep those functions type-checked all the same.
 */
interface Element {
  tagName: string;
  id: string;
  className: unknown;
  textContent: string | null;
  parentElement: Element | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { left: number; right: number; top: number; bottom: number; width: number; height: number };
  matches(selector: string): boolean;
  closest(selector: string): Element | null;
  insertAdjacentHTML(where: 'beforeend', html: string): void;
}
declare const document: {
  activeElement: Element | null;
  body: Element;
  documentElement: { scrollWidth: number };
  querySelector(selector: string): Element | null;
  querySelectorAll(selector: string): ArrayLike<Element> & Iterable<Element>;
  getElementById(id: string): Element | null;
  elementFromPoint(x: number, y: number): Element | null;
};
declare function getComputedStyle(e: Element): {
  display: string;
  visibility: string;
  backgroundColor: string;
  outlineStyle: string;
  outlineWidth: string;
  outlineColor: string;
  outlineOffset: string;
};
declare const innerWidth: number;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/** axe-core put into the page by evaluate (the CSP blocks script tags, not the driver). */
async function injectAxe(page: Page): Promise<void> {
  if (await page.evaluate(() => typeof (globalThis as unknown as { axe?: unknown }).axe === 'object')) return;
  await page.evaluate(AXE_SOURCE);
}

/** Serious and critical violations of the WCAG tags, on the page as it is now. */
async function axeSerious(page: Page): Promise<AxeViolation[]> {
  await injectAxe(page);
  const violations = await page.evaluate(async (tags) => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, o: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const r = await axe.run((globalThis as unknown as { document: unknown }).document, {
      runOnly: { type: 'tag', values: tags },
      resultTypes: ['violations'],
    });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  }, WCAG_TAGS);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

function describeViolations(where: string, vs: AxeViolation[]): string {
  return vs
    .map(
      (v) =>
        `${where}: ${v.id} (${v.impact}) ${v.help}\n` +
        v.nodes.map((n) => `    ${JSON.stringify(n.target)}${n.failureSummary ? ` — ${n.failureSummary.replace(/\s+/g, ' ').slice(0, 240)}` : ''}`).join('\n'),
    )
    .join('\n');
}

describeBrowser('dashboard accessibility in chromium', () => {
  jest.setTimeout(120_000);
  let tmp: ReturnType<typeof makeTmpDir>;
  let profile: string;
  let ids: ReturnType<typeof generateDataRoot>;
  let dash: Awaited<ReturnType<typeof startDashboard>>;
  let examples: Awaited<ReturnType<typeof startDashboard>>;
  let browser: BrowserContext;
  let page: Page;
  /** Whether `dash` shows private threads (it does here; the thread page is checked only then). */
  const includePrivate = true;

  beforeAll(async () => {
    tmp = makeTmpDir('minutes-dash-a11y-');
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-chromium-'));
    ids = generateDataRoot(path.join(tmp.dir, 'root'), { condensations: 5, entries: 20, knowledge: true });
    // A context package, so its page is checked too.
    const recall = buildRecallService({ semantic: { mode: 'off', cacheDir: '' }, logger: silentLogger() });
    const store = new ChannelStore({ root: path.join(tmp.dir, 'root') });
    const deps = { store, search: (r: Parameters<typeof recall.search>[0]) => recall.search(r), clock: () => new Date('2025-03-10T10:00:00Z') };
    await createPackage(deps, {
      name: 'orders-db',
      from: { kind: 'discord', guildId: ids.guild, channelId: ids.channel },
      query: 'orders database postgres',
      actor: 'ana',
      title: 'The orders database',
    });
    await recall.close();
    // The repository's examples/ is a data root too: served from a copy, never from the repository.
    fs.cpSync(path.join(__dirname, '..', '..', 'examples'), path.join(tmp.dir, 'examples'), { recursive: true });
    dash = await startDashboard(path.join(tmp.dir, 'root'), undefined, { includePrivate });
    examples = await startDashboard(path.join(tmp.dir, 'examples'));
    browser = await launchChromium(profile);
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await dash?.close();
    await examples?.close();
    tmp?.cleanup();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });

  /** Every page type: [name, url]. */
  function pages(): Array<[string, string]> {
    const ch = `channel/${ids.channelKey}`;
    const list: Array<[string, string]> = [
      ['home', dash.url],
      ['home filtered by server', `${dash.url}?server=${ids.guild}`],
      ['home as of 2025-02-15', `${dash.url}?at=2025-02-15`],
      ['channel', `${dash.url}${ch}`],
      ['channel as of 2025-02-15', `${dash.url}${ch}?at=2025-02-15`],
      ['CONTEXT.md', `${dash.url}${ch}/context`],
      ['HISTORY.md', `${dash.url}${ch}/history`],
      ['condensation', `${dash.url}${ch}/c/2025-03-05-postgres`],
      ['search', `${dash.url}search?q=postgres`],
      ['packages', `${dash.url}packages`],
      ['package', `${dash.url}package/${ids.guild}/orders-db`],
      ['examples home', examples.url],
      ['examples channel', `${examples.url}channel/local/orders-team`],
      ['examples packages', `${examples.url}packages`],
    ];
    if (includePrivate) list.push(['private thread', `${dash.url}channel/${ids.threadKey}`]);
    return list;
  }

  async function open(url: string, o: { width?: number; scheme?: 'light' | 'dark'; media?: 'screen' | 'print' } = {}): Promise<number> {
    await page.setViewportSize({ width: o.width ?? 1280, height: 900 });
    await page.emulateMedia({ colorScheme: o.scheme ?? 'light', media: o.media ?? 'screen' });
    const r = await page.goto(url);
    await page.waitForLoadState('load');
    return r?.status() ?? 0;
  }

  it('serves every page it checks (200), the packages pages included', async () => {
    const failed: string[] = [];
    for (const [name, url] of pages()) {
      const status = await open(url);
      if (status !== 200) failed.push(`${name} ${url}: ${status}`);
    }
    expect(failed).toEqual([]);
    expect(pages().length).toBeGreaterThanOrEqual(12);
  });

  it('no serious or critical axe violation (WCAG 2.0–2.2 A/AA) at 1280 and 375 px, in the light and the dark scheme', async () => {
    const report: string[] = [];
    let runs = 0;
    for (const [name, url] of pages()) {
      expect(await open(url)).toBe(200);
      for (const width of WIDTHS) {
        for (const scheme of SCHEMES) {
          await page.setViewportSize({ width, height: 900 });
          await page.emulateMedia({ colorScheme: scheme, media: 'screen' });
          const vs = await axeSerious(page);
          runs++;
          if (vs.length) report.push(describeViolations(`${name} (${url}) at ${width}px, ${scheme}`, vs));
        }
      }
    }
    expect(runs).toBe(pages().length * WIDTHS.length * SCHEMES.length);
    if (report.length) throw new Error(`axe found serious/critical violations:\n${report.join('\n')}`);
  });

  it('axe as run here does report serious violations (a planted low-contrast text, an image without alt, an unnamed link)', async () => {
    expect(await open(`${dash.url}channel/${ids.channelKey}`, { scheme: 'dark' })).toBe(200);
    await page.evaluate(() => {
      const main = document.querySelector('main')!;
      main.insertAdjacentHTML(
        'beforeend',
        '<p style="color:#777;background:#666">hard to read</p><img src="/x.png"><a href="/"><svg width="8" height="8"></svg></a>',
      );
    });
    const ids_ = (await axeSerious(page)).map((v) => v.id).sort();
    expect(ids_).toEqual(['color-contrast', 'image-alt', 'link-name']);
  });

  it('the dark scheme is in use when the system asks for it (so the dark runs above check dark colours)', async () => {
    await open(`${dash.url}channel/${ids.channelKey}`, { scheme: 'dark' });
    const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await open(`${dash.url}channel/${ids.channelKey}`, { scheme: 'light' });
    const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(light).toBe('rgb(255, 255, 255)');
    expect(dark).not.toBe(light);
  });

  it('no page scrolls sideways at 375 px', async () => {
    const wide: string[] = [];
    for (const [name, url] of pages()) {
      for (const scheme of SCHEMES) {
        expect(await open(url, { width: 375, scheme })).toBe(200);
        const w = await page.evaluate(() => document.documentElement.scrollWidth);
        if (w > 375) {
          // Which elements stick out, for a readable failure.
          const culprits = await page.evaluate(() =>
            [...document.querySelectorAll('body *')]
              .filter((e) => e.getBoundingClientRect().right > 376)
              .slice(0, 5)
              .map(
                (e) =>
                  `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.split(' ').join('.')}` : ''} (right ${Math.round(e.getBoundingClientRect().right)})`,
              ),
          );
          wide.push(`${name} (${scheme}): scrollWidth ${w}; ${culprits.join(', ')}`);
        }
      }
    }
    expect(wide).toEqual([]);
  });

  it('keyboard: skip link first, Enter goes to main, Tab reaches every timeline mark (each named), and every focused element shows an outline', async () => {
    await open(`${dash.url}channel/${ids.channelKey}`);
    await page.keyboard.press('Tab');
    const first = await page.evaluate(() => ({
      text: document.activeElement?.textContent,
      href: document.activeElement?.getAttribute('href'),
      visible: (() => {
        const r = document.activeElement!.getBoundingClientRect();
        return r.right > 0 && r.bottom > 0 && r.width > 0 && r.left < innerWidth;
      })(),
    }));
    expect(first).toEqual({ text: 'Skip to content', href: '#main', visible: true });
    await page.keyboard.press('Enter');
    expect(new URL(page.url()).hash).toBe('#main');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => !!document.activeElement?.closest('main'))).toBe(true);
    // That first element in main is the first focusable one there (nothing in main was skipped).
    expect(
      await page.evaluate(
        () => document.activeElement === document.querySelector('main a[href], main input:not([type=hidden]), main button, main select, main summary'),
      ),
    ).toBe(true);

    for (const scheme of SCHEMES) {
      // Tab from the top through the whole page: what gets focus, its name, its outline (in both schemes).
      await open(`${dash.url}channel/${ids.channelKey}`, { scheme });
      const marks = await page.locator('figure > svg a').count();
      expect(marks).toBe(9); // 4 named condensations + 5 generated ones
      await injectAxe(page);
      await page.evaluate(() => (globalThis as unknown as { axe: { setup(n: unknown): void } }).axe.setup(document));
      const focusables = await page.evaluate(
        () => document.querySelectorAll('a[href], input:not([type=hidden]), button, select, summary, [tabindex]:not([tabindex="-1"])').length,
      );
      const seen: Array<{
        contrast: number;
        tag: string;
        mark: boolean;
        name: string;
        outline: string;
        width: number;
        focusVisible: boolean;
        innerFocus: boolean;
      }> = [];
      for (let i = 0; i < focusables + 5; i++) {
        await page.keyboard.press('Tab');
        const f = await page.evaluate(() => {
          const el = document.activeElement;
          if (!el || el === document.body) return null;
          const s = getComputedStyle(el);
          const axe = (
            globalThis as unknown as {
              axe: { utils: { getNodeFromTree(e: Element): unknown }; commons: { text: { accessibleTextVirtual(v: unknown): string } } };
            }
          ).axe;
          const v = axe.utils.getNodeFromTree(el);
          // The outline against what is drawn next to it (WCAG 1.4.11: 3:1), sampled where it is drawn on either side
          // (outside the box, or inside it with a negative offset: an outline is not hit by elementFromPoint).
          const rgb = (c: string): number[] | null => {
            const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(c);
            return m && (m[4] === undefined || Number(m[4]) > 0.99) ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
          };
          const lum = (c: number[]) =>
            c
              .map((v) => v / 255)
              .map((v, i) => [0.2126, 0.7152, 0.0722][i]! * (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
              .reduce((a, b) => a + b, 0);
          const ratio = (a: number[], b: number[]) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
          const behind = (x: number, y: number): number[] | null => {
            for (let e: Element | null = document.elementFromPoint(x, y); e; e = e.parentElement) {
              const c = rgb(getComputedStyle(e).backgroundColor);
              if (c) return c;
            }
            return null;
          };
          const box = el.getBoundingClientRect();
          const outlineColour = rgb(s.outlineColor);
          const gap = parseFloat(s.outlineOffset) + parseFloat(s.outlineWidth) / 2;
          const sides = [box.left - gap, box.right + gap]
            .filter((x) => x >= 0 && x < innerWidth)
            .map((x) => behind(x, box.top + box.height / 2))
            .filter((c): c is number[] => c !== null);
          const contrast = outlineColour && sides.length ? Math.min(...sides.map((c) => ratio(outlineColour, c))) : 0;
          return {
            contrast: Math.round(contrast * 100) / 100,
            tag: el.tagName.toLowerCase(),
            mark: !!el.closest('figure > svg') && el.tagName.toLowerCase() === 'a',
            name: v ? axe.commons.text.accessibleTextVirtual(v).trim() : '',
            outline: s.outlineStyle,
            width: parseFloat(s.outlineWidth),
            focusVisible: el.matches(':focus-visible'),
            // A date field's calendar button has focus inside the field (its shadow tree): the field is then :focus-within only.
            innerFocus: !el.matches(':focus') && el.matches(':focus-within'),
          };
        });
        if (!f) break;
        seen.push(f);
      }
      await page.evaluate(() => (globalThis as unknown as { axe: { teardown(): void } }).axe.teardown());
      const markStops = seen.filter((s) => s.mark);
      expect(markStops).toHaveLength(marks);
      expect(markStops.filter((s) => !s.name)).toEqual([]);
      expect(markStops.map((s) => s.name)).toContain('2025-02-01 Database revisited: superseded, replaced by Postgres for orders');
      // Every element focused by the keyboard matches :focus-visible and shows an outline.
      const bare = seen.filter((s) => !(s.focusVisible || s.innerFocus) || s.outline === 'none' || !(s.width >= 2) || !(s.contrast >= 3));
      expect(bare).toEqual([]);
      const outlined = (tag: string) => seen.filter((s) => s.tag === tag && s.focusVisible && s.outline !== 'none').length;
      expect(outlined('a')).toBeGreaterThan(marks);
      expect(outlined('button')).toBeGreaterThanOrEqual(3); // header search, as of, this channel's search
      expect(outlined('input')).toBeGreaterThanOrEqual(3);
      expect(seen.length).toBeGreaterThan(marks + 10);
    }
  });

  it('print hides the header and the forms and keeps every section', async () => {
    await open(`${dash.url}channel/${ids.channelKey}`, { media: 'print' });
    const r = await page.evaluate(() => ({
      header: getComputedStyle(document.querySelector('header')!).display,
      skip: getComputedStyle(document.querySelector('.skip')!).display,
      forms: [...document.querySelectorAll('form')].map((f) => getComputedStyle(f).display),
      sections: ['state', 'decisions', 'timeline', 'actions', 'questions', 'playbooks', 'memory'].map((id) => {
        const el = document.getElementById(id);
        return {
          id,
          shown: !!el && getComputedStyle(el).display !== 'none' && getComputedStyle(el).visibility !== 'hidden' && el.getBoundingClientRect().height > 0,
        };
      }),
    }));
    expect(r.header).toBe('none');
    expect(r.skip).toBe('none');
    expect(r.forms.length).toBeGreaterThanOrEqual(4); // search, as of, this channel, memory filter
    expect(r.forms.filter((d) => d !== 'none')).toEqual([]);
    expect(r.sections.filter((s) => !s.shown)).toEqual([]);
    // On screen the header shows (the print rules are print's only).
    await open(`${dash.url}channel/${ids.channelKey}`);
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('header')!).display)).not.toBe('none');
  });

  it('the channel page has its sections in order; as of a day it leaves out memory and recall health and says so', async () => {
    const sectionIds = () => page.evaluate(() => [...document.querySelectorAll('main section')].map((s) => s.id));
    await open(`${dash.url}channel/${ids.channelKey}`);
    expect(await sectionIds()).toEqual(CHANNEL_SECTIONS);
    await open(`${dash.url}channel/${ids.channelKey}?at=2025-02-15`);
    expect(await sectionIds()).toEqual(CHANNEL_SECTIONS.filter((s) => s !== 'memory' && s !== 'recall-health'));
    expect(await page.locator('main').textContent()).toContain('As the channel stood at the end of 2025-02-15');
  });
});
