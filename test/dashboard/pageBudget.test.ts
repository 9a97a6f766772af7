import fs from 'node:fs';
import path from 'node:path';
import { generateDataRoot } from '../helpers/dashboardData';
import { makeTmpDir } from '../helpers/tmp';
import { startDashboard } from './helpers';

/**
 * Each page stays under 200 KB (issue 44), on the example channel and on a channel of the size the
 * dashboard bench uses (300 condensations, 5,000 MEMORY.md entries). Sizes are deterministic; how
 * fast the pages are served is measured by `npm run bench:dashboard`, not timed here.
 */
const BUDGET = 200 * 1024;

describe('page size budget', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeAll(() => {
    tmp = makeTmpDir('minutes-dash-budget-');
  });
  afterAll(() => tmp.cleanup());

  /** Each page's body, fetched once. */
  async function bodies(root: string, pages: string[]): Promise<Record<string, string>> {
    const dash = await startDashboard(root);
    try {
      const out: Record<string, string> = {};
      for (const p of pages) {
        const r = await fetch(new URL(p, dash.url));
        expect({ p, status: r.status }).toEqual({ p, status: 200 });
        out[p] = await r.text();
      }
      return out;
    } finally {
      await dash.close();
    }
  }

  it('every page of the example channel', async () => {
    const root = path.join(tmp.dir, 'examples');
    fs.cpSync(path.join(__dirname, '..', '..', 'examples'), root, { recursive: true });
    const c = '/channel/local/orders-team';
    const got = await bodies(root, [
      '/',
      c,
      `${c}?at=2026-11-20`,
      `${c}/context`,
      `${c}/history`,
      `${c}/c/2026-11-16-orders-database`,
      '/search?q=orders+database',
    ]);
    for (const [p, html] of Object.entries(got)) expect({ p, over: Buffer.byteLength(html) > BUDGET }).toEqual({ p, over: false });
  });

  it('a channel with 300 condensations and 5,000 memory entries', async () => {
    const root = path.join(tmp.dir, 'big');
    const ids = generateDataRoot(root, { condensations: 300, entries: 5000, knowledge: true });
    const c = `/channel/${ids.channelKey}`;
    const got = await bodies(root, ['/', c, `${c}?filter=widget`, `${c}?at=2024-01-01`, '/search?q=widget+rollout']);
    for (const [p, html] of Object.entries(got)) expect({ p, over: Buffer.byteLength(html) > BUDGET }).toEqual({ p, over: false });
    // The memory list is cut (the filter finds the rest), and says so.
    expect(got[c]).toContain('200 of 5003 shown: filter to find the rest.');
  });
});
