import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli';
import { generateDataRoot } from '../helpers/dashboardData';
import { makeTmpDir } from '../helpers/tmp';
import { sectionOf, startDashboard } from './helpers';

/**
 * "As of" a day on the channel page (issue 44): the decisions in force then, with their status as it
 * stood then, are the ones `minutes decisions --at` (the rule behind `/decisions at:` and MCP's
 * `as_of`) answers, day by day across the example channel's history and the generated #backend.
 */
describe('the channel page as of a day', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let dash: Awaited<ReturnType<typeof startDashboard>>;
  let gen: Awaited<ReturnType<typeof startDashboard>>;
  let ids: ReturnType<typeof generateDataRoot>;
  const get = async (base: string, p: string) => {
    const r = await fetch(new URL(p, base));
    return { status: r.status, body: await r.text() };
  };

  /** The decisions section's rows: id, status and what the badge's detail says. */
  function pageDecisions(html: string): Array<{ id: string; status: string; detail: string }> {
    return [
      ...sectionOf(html, 'decisions').matchAll(
        /<span class="badge s-(\w+)">\w+<\/span>(?: <span class="meta">([^<]*)<\/span>)? <span class="meta">decided [\d-]+ · (d-[0-9a-z]+)<\/span>/g,
      ),
    ].map((m) => ({ id: m[3]!, status: m[1]!, detail: m[2] ?? '' }));
  }

  /** `minutes decisions --at DAY --json`'s answer, in the page's terms. */
  async function cliDecisions(dir: string, day: string): Promise<Array<{ id: string; status: string; detail: string }>> {
    const r = await runCli(['decisions', '--channel-dir', dir, '--at', day, '--json'], { env: {}, cwd: tmp.dir });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      in_force: Array<{ id: string; status: string; ratified_by?: string; ratified_on?: string; disputed_by?: string; disputed_on?: string }>;
    };
    return out.in_force.map((d) => ({
      id: d.id,
      status: d.status,
      detail:
        d.status === 'ratified'
          ? `by ${d.ratified_by} (${d.ratified_on})`
          : d.status === 'disputed' && d.disputed_by
            ? `reopened by ${d.disputed_by} (${d.disputed_on})`
            : d.status === 'proposed' && d.ratified_by
              ? `confirmed by ${d.ratified_by}`
              : '',
    }));
  }

  beforeAll(async () => {
    tmp = makeTmpDir('minutes-dash-asof-');
    fs.cpSync(path.join(__dirname, '..', '..', 'examples'), path.join(tmp.dir, 'examples'), { recursive: true });
    dash = await startDashboard(path.join(tmp.dir, 'examples'), undefined, { clock: () => new Date('2026-12-01T12:00:00Z') });
    ids = generateDataRoot(path.join(tmp.dir, 'root'), { knowledge: true, now: Date.parse('2025-03-20T12:00:00Z') });
    gen = await startDashboard(path.join(tmp.dir, 'root'), undefined, { clock: () => new Date('2025-03-20T12:00:00Z') });
  });
  afterAll(async () => {
    await dash?.close();
    await gen?.close();
    tmp.cleanup();
  });

  it.each(['2026-11-01', '2026-11-02', '2026-11-15', '2026-11-16', '2026-11-20', '2026-11-23', '2026-11-30', '2026-12-01'])(
    'the example channel on %s: the same decisions and status as `minutes decisions --at`',
    async (day) => {
      const page = await get(dash.url, `/channel/local/orders-team?at=${day}`);
      expect(page.status).toBe(200);
      expect(page.body).toContain(`As the channel stood at the end of ${day} (UTC)`);
      expect(pageDecisions(page.body)).toEqual(await cliDecisions(path.join(tmp.dir, 'examples', 'local', 'orders-team'), day));
    },
  );

  it.each(['2025-01-09', '2025-01-10', '2025-02-01', '2025-03-05', '2025-03-06', '2025-03-09', '2025-03-10'])(
    'the generated #backend on %s (ratified on the 6th, reopened on the 10th): the same as the CLI',
    async (day) => {
      const page = await get(gen.url, `/channel/${ids.channelKey}?at=${day}`);
      expect(pageDecisions(page.body)).toEqual(await cliDecisions(path.join(tmp.dir, 'root', ids.guild, ids.channel), day));
    },
  );

  it('the day changes what the page shows: the state, the timeline and what was open then', async () => {
    const before = await get(dash.url, '/channel/local/orders-team?at=2026-11-10');
    expect(pageDecisions(before.body).map((d) => d.id)).toEqual(['d-1d74a97f4b']);
    // The state was written on the 23rd: not known on the 10th.
    expect(sectionOf(before.body, 'state')).toContain('No current state recorded.');
    // One condensation by then, so one mark on the timeline, in force (proposed).
    expect(sectionOf(before.body, 'timeline').match(/<a href="[^"]*" aria-label=/g)).toHaveLength(1);
    expect(sectionOf(before.body, 'timeline')).toContain('aria-label="2026-11-02 Orders database: proposed"');
    // The backup item was open on the 10th and overdue (due the 9th); it was dropped on the 16th.
    expect(sectionOf(before.body, 'actions')).toMatch(
      /set up nightly backups of db-1 by 2026-11-09 <span class="badge overdue">overdue: due 2026-11-09<\/span>/,
    );
    // Memory and recall health are today's: not on a page about the past.
    expect(before.body).not.toContain('id="memory"');
    expect(before.body).not.toContain('id="recall-health"');
    const now = await get(dash.url, '/channel/local/orders-team');
    expect(sectionOf(now.body, 'state')).toContain('releases go out from the release branch on Tuesdays');
    expect(sectionOf(now.body, 'timeline')).toContain('aria-label="2026-11-02 Orders database: superseded, replaced by Orders database"');
    expect(sectionOf(now.body, 'actions')).not.toContain('set up nightly backups of db-1');
  });

  it('a day that is not a date says so in one line and shows today', async () => {
    const page = await get(dash.url, '/channel/local/orders-team?at=2026-02-30');
    expect(page.status).toBe(200);
    expect(page.body).toContain(
      '&quot;2026-02-30&quot; is not a date: give a day as YYYY-MM-DD (e.g. 2025-03-05); it means the end of that day, UTC; showing today.',
    );
    expect(pageDecisions(page.body).map((d) => d.id)).toEqual(['d-1162ecb6fa', 'd-63f1d017d3']);
  });
});
