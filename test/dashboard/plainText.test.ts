import fs from 'node:fs';
import path from 'node:path';
import { generateDataRoot } from '../helpers/dashboardData';
import { makeTmpDir } from '../helpers/tmp';
import { startDashboard } from './helpers';
import { ChannelStore } from '../../src/memory/store';
import { silentLogger } from '../../src/log/logger';
import { buildRecallService } from '../../src/recall/service';
import { createPackage } from '../../src/packages/library';
import { activatePackage } from '../../src/packages/activation';

/** Markdown a person would see as syntax: bold, a link's brackets, backticks. */
const SYNTAX = /\*\*|\]\(|`/;

/**
 * What a first visit showed: search rows and package items as raw markdown, a package page with
 * the server's and channel's ids and its name twice in the title, ids and dates broken mid-word.
 */
describe('dashboard: text as a reader sees it', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let ids: ReturnType<typeof generateDataRoot>;
  let dash: Awaited<ReturnType<typeof startDashboard>>;
  beforeAll(async () => {
    tmp = makeTmpDir('minutes-dash-');
    ids = generateDataRoot(tmp.dir, { condensations: 2, entries: 5 });
    // CONTEXT.md as the Secretary writes it: bold labels, links to condensations, ids in backticks.
    fs.writeFileSync(
      path.join(tmp.dir, ids.guild, ids.channel, 'CONTEXT.md'),
      [
        '# Channel Context',
        '',
        '## Key Decisions',
        '',
        '1. [2025-03-05] **Orders database:** the orders service moves to Postgres 16 ([condensation](condensations/2025-03-05-postgres.md))',
        '',
        '## Open Action Items',
        '',
        '- `a-91505b` migrate the orders tables to Postgres — bo _(from 2025-03-05)_',
        '',
      ].join('\n'),
    );
    const store = new ChannelStore({ root: tmp.dir });
    const recall = buildRecallService({ semantic: { mode: 'off', cacheDir: '' }, logger: silentLogger() });
    const deps = { store, search: (r: Parameters<typeof recall.search>[0]) => recall.search(r), clock: () => new Date('2025-03-10T10:00:00Z') };
    const channel = { kind: 'discord' as const, guildId: ids.guild, channelId: ids.channel };
    await createPackage(deps, { name: 'orders-db', from: channel, query: 'orders Postgres tables', actor: 'ana' });
    await activatePackage({ store }, { target: channel, name: 'orders-db', actor: 'ana' });
    await recall.close();
    dash = await startDashboard(tmp.dir);
  });
  afterAll(async () => {
    await dash.close();
    tmp.cleanup();
  });
  const get = async (p: string) => (await fetch(dash.url.replace(/\/$/, '') + p)).text();
  /** The text of each row's cells in the first table after `heading`. */
  const cells = (html: string, column: number) =>
    [...html.matchAll(/<tr>((?:<td[^>]*>[\s\S]*?<\/td>)+)<\/tr>/g)].map((m) => [...m[1].matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)][column]?.[1] ?? '');

  it('search rows show the words, not the markdown', async () => {
    // A condensation's line (`**Decision:** …`) in the data root, and one written with a link and backticks.
    fs.appendFileSync(
      path.join(tmp.dir, ids.guild, ids.channel, 'HISTORY.md'),
      '\n- 2025-03-06 `orders-db` moved to Postgres, see [the condensation](condensations/2025-03-05-postgres.md)\n',
    );
    const html = await get('/search?q=Postgres+orders');
    const texts = cells(html, 5).filter(Boolean);
    expect(texts.some((t) => /^Decision: use Postgres 16 for the orders service/.test(t))).toBe(true);
    expect(texts.some((t) => /orders-db moved to Postgres, see the condensation/.test(t))).toBe(true);
    for (const t of texts) expect(t).not.toMatch(SYNTAX);
  });

  it('a package page: names for ids, its name once in the title, items without markdown', async () => {
    const html = await get(`/package/${ids.guild}/orders-db`);
    expect(html).toContain('<title>Package orders-db — Minutes</title>');
    expect(html).toContain('<h1>Package orders-db</h1>');
    const shown = html.replace(/href="[^"]*"/g, '');
    expect(shown).not.toContain(ids.channel);
    expect(shown).not.toContain(ids.guild);
    expect(shown).toContain('#backend');
    const items = [...html.matchAll(/<pre>([\s\S]*?)<\/pre>/g)].map((m) => m[1]);
    expect(items.some((t) => /Orders database: the orders service moves to Postgres 16/.test(t))).toBe(true);
    for (const t of items) expect(t).not.toMatch(SYNTAX);
    const list = await get('/packages');
    expect(list.replace(/href="[^"]*"/g, '')).not.toContain(ids.channel);
  });

  it("a memory entry's id, source and date stay on a line of their own under its text", async () => {
    const html = await get(`/channel/${ids.channelKey}`);
    expect(html).toContain('<li>The orders service uses Postgres 16<br><span class="meta">m-aaaa01 · ana · 2025-03-05</span></li>');
  });
});
