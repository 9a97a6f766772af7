import path from 'node:path';
import { generateDataRoot } from '../helpers/dashboardData';
import { makeTmpDir } from '../helpers/tmp';
import { startDashboard } from './helpers';

/**
 * The home page at a glance (issue 44): a card per channel with its state, its newest decisions and
 * their status, what is open and overdue, recall health in a small picture and words, and a filter
 * by server. Over a generated root whose #backend has a context.json and a log (test/helpers/dashboardData.js).
 */
describe('the home page', () => {
  const NOW = Date.parse('2025-03-20T12:00:00Z');
  let tmp: ReturnType<typeof makeTmpDir>;
  let ids: ReturnType<typeof generateDataRoot>;
  let dash: Awaited<ReturnType<typeof startDashboard>>;
  const get = async (p: string) => (await fetch(new URL(p, dash.url))).text();
  /** The card of one channel: its list item. */
  const cardOf = (html: string, key: string) => {
    const start = html.indexOf(`<a href="/channel/${key}">`);
    if (start < 0) throw new Error(`no card for ${key}`);
    return html.slice(html.lastIndexOf('<li class="card">', start), html.indexOf('</article></li>', start));
  };

  beforeAll(async () => {
    tmp = makeTmpDir('minutes-dash-home-');
    ids = generateDataRoot(path.join(tmp.dir, 'root'), { condensations: 3, knowledge: true, now: NOW });
    dash = await startDashboard(path.join(tmp.dir, 'root'), undefined, { clock: () => new Date(NOW) });
  });
  afterAll(async () => {
    await dash.close();
    tmp.cleanup();
  });

  it("a channel's card: state, newest decisions with their status, open and overdue counts, recall health", async () => {
    const card = cardOf(await get('/'), ids.channelKey);
    expect(card).toContain('<p class="meta">Acme</p>');
    expect(card).toContain('Orders run on Postgres 16; the migration is finishing');
    // The three newest decisions, newest first, each with its status in words (not only colour).
    const decisions = [
      ...card.matchAll(
        /<li>(?:<del>)?([^<:]+)(?:<\/del>)?: [^<]*<br><span class="badge s-(\w+)">\2<\/span>( <span class="meta">(?!· decided)[^<]*<\/span>)? <span class="meta">· decided [\d-]+<\/span>/g,
      ),
    ].map((m) => [m[1], m[2], (m[3] ?? '').replace(/<[^>]+>/g, '').trim()]);
    expect(decisions).toEqual([
      ['Planted payload', 'disputed', 'reopened by bo (2025-03-10)'],
      ['Postgres for orders', 'ratified', 'by ana (2025-03-06)'],
      ['Database revisited', 'superseded', ''],
    ]);
    // Two open items (one done is not counted); the one due 2025-03-12 is overdue on 2025-03-20.
    expect(card).toContain(`<a href="/channel/${ids.channelKey}#actions">2 open action items</a><strong class="overdue">1 overdue</strong>`);
    expect(card).toMatch(/<li class="overdue">bo: set up nightly backups of the orders database <span class="meta">due 2025-03-12<\/span><\/li>/);
    expect(card).not.toContain('move the reporting jobs');
    expect(card).toContain('1 open question');
    // The disputed one is still in force: nothing replaced it yet.
    expect(card).toContain('<span>2 in force</span>');
    // The log's 12 replies: 8 injected, 4 abstained; the bar's widths follow (120 px in all).
    expect(card).toContain('Recall, last 30 days: 12 replies, injected 8 (67%), abstained 4 (33%)');
    expect(card).toMatch(
      /<rect class="h-injected" x="0.0" y="0" width="80.0" height="12"\/><rect class="h-abstained" x="80.0" y="0" width="40.0" height="12"\/>/,
    );
  });

  it('a channel without context.json or replies says so instead of showing empty figures', async () => {
    const card = cardOf(await get('/'), 'local/sandbox');
    expect(card).toContain('No decision recorded yet.');
    expect(card).toContain('0 open action items');
    expect(card).not.toContain('overdue');
    expect(card).toContain('Recall: no reply in the last 30 days.');
  });

  it('overdue moves with the clock: the same item is not overdue before its day', async () => {
    const early = await startDashboard(path.join(tmp.dir, 'root'), undefined, { clock: () => new Date('2025-03-11T12:00:00Z') });
    try {
      const card = cardOf(await (await fetch(early.url)).text(), ids.channelKey);
      expect(card).toContain('2 open action items');
      expect(card).not.toContain('overdue');
    } finally {
      await early.close();
    }
  });

  it('the server filter shows one server’s channels, says which, and keeps its choice selected', async () => {
    const all = await get('/');
    expect(all).toMatch(/<select id="server" name="server"><option value="">all servers \(2\)<\/option>/);
    expect(all).toContain('2 channels.');
    const acme = await get(`/?server=${ids.guild}`);
    expect(acme).toContain('1 channel on Acme.');
    expect(acme).toContain(`<option value="${ids.guild}" selected>Acme</option>`);
    expect(acme).toContain(`/channel/${ids.channelKey}"`);
    expect(acme).not.toContain('/channel/local/sandbox"');
    const local = await get('/?server=console');
    expect(local).toContain('/channel/local/sandbox"');
    expect(local).not.toContain(`/channel/${ids.channelKey}"`);
    const none = await get('/?server=999');
    expect(none).toContain('No channel of this server in this data folder.');
  });

  it('as of a day, each card shows its channel then, and links to the channel page as of the same day', async () => {
    const html = await get('/?at=2025-03-05');
    expect(html).toContain('<title>Channels as of 2025-03-05 — Minutes</title>');
    expect(html).toContain('As the channels stood at the end of 2025-03-05 (UTC)');
    const card = cardOf(html, `${ids.channelKey}?at=2025-03-05`);
    // On the 5th Postgres was decided but not yet ratified (the 6th), and the planted one not yet made (the 9th).
    expect(card).toContain(
      'Postgres for orders: use Postgres 16 for the orders service, with nightly backups<br><span class="badge s-proposed">proposed</span>',
    );
    expect(card).not.toContain('Planted payload');
    // The replica item was still open on the 5th (done on the 8th); nothing was overdue yet (the backups were due on the 12th).
    expect(card).toContain('3 open action items');
    expect(card).not.toContain('overdue');
    expect(card).toContain(`href="/channel/${ids.channelKey}?at=2025-03-05#actions"`);
    const bad = await get('/?at=yesterday');
    expect(bad).toContain('&quot;yesterday&quot; is not a date');
    expect(bad).toContain('<title>Channels — Minutes</title>');
  });
});
