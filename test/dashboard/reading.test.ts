import fs from 'node:fs';
import path from 'node:path';
import { condensedChannel } from '../helpers/condensedChannel';
import { makeTmpDir } from '../helpers/tmp';
import { startDashboard } from './helpers';

/** Every link of a page, and the page it opens (status). */
async function hrefsOf(base: string, html: string): Promise<string[]> {
  return [...html.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&')).filter((h) => !/^https?:/.test(h) || h.startsWith(base));
}

/** What a person sees on a page: the text between tags. */
const visibleText = (html: string) =>
  html
    .replace(/<style>[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/**
 * The dashboard over a channel made by Minutes itself (`minutes condense --apply`, twice), read as a
 * person reads it: links that open, no internal markers, posts laid out as posted, plain snippets.
 */
describe('the dashboard, as a person reads it', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let root: string;
  let dash: Awaited<ReturnType<typeof startDashboard>>;
  const get = async (p: string) => {
    const r = await fetch(new URL(p, dash.url), { redirect: 'manual' });
    return { status: r.status, body: await r.text(), headers: r.headers };
  };
  beforeAll(async () => {
    tmp = makeTmpDir('minutes-dash-read-');
    root = path.join(tmp.dir, 'channels');
    await condensedChannel({ root, scratch: tmp.dir });
    dash = await startDashboard(root);
  });
  afterAll(async () => {
    await dash.close();
    tmp.cleanup();
  });

  it("every link on the channel page opens a page: CONTEXT.md's (condensation) links go to the condensation's page", async () => {
    // The channel page and CONTEXT.md's own page, one link away from it.
    for (const at of ['/channel/local/orders', '/channel/local/orders/context']) {
      const page = await get(at);
      expect(page.status).toBe(200);
      const links = await hrefsOf(dash.url, page.body);
      expect(links.length).toBeGreaterThan(at.endsWith('/context') ? 1 : 5);
      for (const href of links) {
        const r = await fetch(new URL(href, new URL(at, dash.url)));
        expect({ at, href, status: r.status }).toEqual({ at, href, status: 200 });
      }
    }
    const context = /<section id="context">([\s\S]*?)<\/section>/.exec((await get('/channel/local/orders/context')).body)![1]!;
    expect(context).toContain('<a href="/channel/local/orders/c/2026-11-24-database-choice" rel="noopener noreferrer nofollow">condensation</a>');
    expect((await get('/channel/local/orders')).body).toContain('<a href="/channel/local/orders/context">CONTEXT.md</a>');
  });

  it('a relative link to something the dashboard has no page for is shown as text, not a link to a 404', async () => {
    const ctx = path.join(root, 'local', 'orders', 'CONTEXT.md');
    const before = fs.readFileSync(ctx, 'utf8');
    try {
      fs.appendFileSync(ctx, '\n## Notes (hand-written)\n\nSee [the runbook](docs/runbook.md) and [gone](condensations/2020-01-01-gone.md).\n');
      const page = await get('/channel/local/orders/context');
      expect(page.body).toContain('See the runbook and gone.');
      expect(page.body).not.toMatch(/href="[^"]*(runbook|gone)/);
    } finally {
      fs.writeFileSync(ctx, before);
    }
  });

  it("Minutes' internal markers are never shown: not the CONTEXT.md hash line, not the condensation keys in HISTORY.md", async () => {
    expect(fs.readFileSync(path.join(root, 'local', 'orders', 'HISTORY.md'), 'utf8')).toContain('<!-- minutes:cond:');
    for (const p of ['/channel/local/orders', '/channel/local/orders/c/2026-11-24-database-choice']) {
      const page = await get(p);
      expect(page.body).not.toMatch(/minutes:(context-hash|cond)/);
      expect(visibleText(page.body)).not.toContain('<!--');
    }
  });

  it('the condensation page shows the post as posted: one field per line', async () => {
    const page = await get('/channel/local/orders/c/2026-11-24-database-choice');
    const posted = /<h2>As posted<\/h2><div class="md">([\s\S]*?)<\/div><\/section>/.exec(page.body)![1]!;
    for (const field of ['Date', 'Channel', 'Participants', 'Context', 'Decision', 'Rationale', 'Action items', 'Supersedes']) {
      expect(posted).toMatch(new RegExp(`(<p>|<br>\\n)<strong>${field}:</strong>`));
    }
  });

  it('search snippets are plain text, without markdown, cut at words', async () => {
    for (const q of ['migrate orders', 'database choice']) {
      const page = await get(`/search?q=${encodeURIComponent(q)}`);
      const hits = /<h3>Condensations containing the words<\/h3><ul>([\s\S]*?)<\/ul>/.exec(page.body)![1]!;
      const snippets = [...hits.matchAll(/<\/a> — (.*?)<\/li>/g)].map((m) => m[1]!);
      expect(snippets).toHaveLength(q === 'database choice' ? 2 : 1);
      for (const s of snippets) {
        expect(s).not.toMatch(/\*\*|##|<|\s{2}/);
        // Whole words: the first and last are cut only with an ellipsis.
        expect(s).toMatch(/^(…|[A-Z])/);
        expect(s).toMatch(/(…|[a-z0-9.])$/i);
      }
      if (q === 'database choice') expect(snippets[0]).toMatch(/Date: 2026-11-\d\d Channel: #orders Participants: al, bo/);
      else expect(snippets[0]).toContain('Action items: bo: migrate the orders tables off MySQL due 2026-12-01');
    }
  });

  it("images only from the dashboard itself: an image pasted into memory cannot make a reader's browser call out", async () => {
    const page = await get('/channel/local/orders');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toMatch(/(^|; )img-src 'self'(;|$)/);
    expect(csp).not.toMatch(/https:|data:|\*/);
  });
});
