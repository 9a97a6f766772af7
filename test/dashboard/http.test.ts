import http from 'node:http';
import { CHANNEL, generateDataRoot, GUILD } from '../helpers/dashboardData';
import { makeTmpDir } from '../helpers/tmp';
import { hashTree, scoreRows, startDashboard } from './helpers';

/** A raw GET: fetch() would normalise `..` away before the server ever saw it. */
function rawGet(
  url: string,
  pathAndQuery: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    http
      .get({ host: u.hostname, port: u.port, path: pathAndQuery, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      })
      .on('error', reject);
  });
}

describe('dashboard over HTTP', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let ids: ReturnType<typeof generateDataRoot>;
  let dash: Awaited<ReturnType<typeof startDashboard>>;
  beforeAll(async () => {
    tmp = makeTmpDir('minutes-dash-');
    ids = generateDataRoot(tmp.dir, { condensations: 12, entries: 30 });
    // Shown with the operator's opt-in (`--include-private`) unless a case says otherwise.
    dash = await startDashboard(tmp.dir, undefined, { includePrivate: true });
  });
  afterAll(async () => {
    await dash.close();
    tmp.cleanup();
  });

  it('without --include-private a private thread is not listed, shown or searched', async () => {
    const closed = await startDashboard(tmp.dir);
    try {
      const home = await rawGet(closed.url, '/');
      expect(home.status).toBe(200);
      expect(home.body).toContain(`/channel/${ids.channelKey}`);
      expect(home.body).not.toContain(`/channel/${ids.threadKey}`);
      for (const p of [`/channel/${ids.threadKey}`, `/channel/${ids.threadKey}/c/2025-03-07-acquisition`]) {
        expect({ p, status: (await rawGet(closed.url, p)).status }).toEqual({ p, status: 404 });
      }
      const all = await rawGet(closed.url, '/search?q=zanzibar+acquisition');
      expect(all.body.split('<section class="hit">').slice(1).join('')).not.toMatch(/Zanzibar/i);
    } finally {
      await closed.close();
    }
  });

  it('home has a card per channel, named as the bot recorded them, with its server and condensation count', async () => {
    const r = await rawGet(dash.url, '/');
    expect(r.status).toBe(200);
    expect(r.body).toContain('Acme');
    expect(r.body).toContain('#backend');
    expect(r.body).toContain(`/channel/${ids.channelKey}`);
    expect(r.body).toMatch(new RegExp(`<h2 id="card-[^"]*"><a href="/channel/${ids.channelKey}">#backend</a></h2><p class="meta">Acme</p>`));
    // No context.json in this root: no decision is recorded, the condensations are counted.
    expect(r.body).toContain('No decision recorded yet (16 condensations).');
    expect(r.body).toContain('local/sandbox');
  });

  it('browsing every page leaves the data root byte for byte unchanged', async () => {
    const before = hashTree(tmp.dir);
    const pages = [
      '/',
      `/channel/${ids.channelKey}`,
      `/channel/${ids.threadKey}`,
      '/channel/local/sandbox',
      `/channel/${ids.channelKey}?filter=widget`,
      `/channel/${ids.channelKey}?at=2025-02-01`,
      `/channel/${ids.channelKey}/context`,
      `/channel/${ids.channelKey}/history`,
      `/channel/${ids.threadKey}/history`,
      `/?server=${ids.guild}`,
      '/search?q=orders+database',
      `/search?q=postgres&in=${ids.channelKey}`,
      `/channel/${ids.channelKey}/c/2025-03-05-postgres`,
      `/channel/${ids.threadKey}/c/2025-03-07-acquisition`,
    ];
    for (const p of pages) expect({ p, status: (await rawGet(dash.url, p)).status }).toEqual({ p, status: 200 });
    expect(hashTree(tmp.dir)).toBe(before);
  });

  it.each([
    '/channel/../../etc/passwd',
    '/channel/%2e%2e/%2e%2e/etc/passwd',
    '/channel/..%2f..%2fetc%2fpasswd',
    '/channel/100000000000000001/200000000000000002/c/..%2fMEMORY',
    '/channel/100000000000000001/200000000000000002/c/%2e%2e%2f%2e%2e%2fnames',
    '/channel/100000000000000001/.minutes',
    '/channel/local/..',
    '/channel/100000000000000001/200000000000000002/c/2025-03-05-postgres.md',
    '/channel/%ZZ',
    '/static/../../etc/passwd',
    '/channel/100000000000000001/999',
    '/channel/100000000000000001/200000000000000002/context/x',
    '/channel/100000000000000001/200000000000000002/c/2025-03-05-postgres/context',
  ])('%s is a 404 and leaks nothing', async (p) => {
    const r = await rawGet(dash.url, p);
    expect(r.status).toBe(404);
    expect(r.body).not.toMatch(/root:|Postgres|MEMORY/);
  });

  it("a private thread's condensations and memory appear only under that thread", async () => {
    const parent = await rawGet(dash.url, `/channel/${ids.channelKey}`);
    expect(parent.body).not.toMatch(/Zanzibar/);
    expect((await rawGet(dash.url, `/channel/${ids.channelKey}/c/2025-03-07-acquisition`)).status).toBe(404);
    const thread = await rawGet(dash.url, `/channel/${ids.threadKey}`);
    expect(thread.body).toContain('Zanzibar acquisition');
    // A private thread has no CONTEXT.md of its own, and its parent's is not shown under it.
    expect((await rawGet(dash.url, `/channel/${ids.threadKey}/context`)).status).toBe(404);
    expect(thread.body).not.toContain('/context"');
    const inParent = await rawGet(dash.url, `/search?q=zanzibar+acquisition+acquire&in=${ids.channelKey}`);
    expect(inParent.body.replace(/value="[^"]*"|<title>[^<]*<\/title>|<h1>[^<]*<\/h1>/g, '')).not.toMatch(/zanzibar/i);
    // Across channels it is found, in the thread's section only.
    const all = await rawGet(dash.url, '/search?q=zanzibar+acquisition');
    const sections = all.body.split('<section class="hit">').slice(1);
    const withIt = sections.filter((s) => /Zanzibar/.test(s));
    expect(withIt.length).toBeGreaterThan(0);
    for (const s of withIt) expect(s).toContain(`/channel/${ids.threadKey}"`);
  });

  it('search shows recall items with their scores and plain-text condensation hits', async () => {
    const r = await rawGet(dash.url, `/search?q=${encodeURIComponent('which database does the orders service use postgres')}&in=${ids.channelKey}`);
    // Found by words (meaning is off): every row scores above zero on words, none has a cosine.
    const rows = scoreRows(r.body);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toEqual({ score: expect.any(Number), lexical: expect.any(Number), semantic: null });
    expect(Math.min(...rows.map((x) => x.score))).toBeGreaterThan(0);
    expect(Math.min(...rows.map((x) => x.lexical))).toBeGreaterThan(0);
    expect(r.body).toContain('Postgres 16');
    const text = await rawGet(dash.url, '/search?q=nightly+backups');
    expect(text.body).toContain(`/channel/${ids.channelKey}/c/2025-03-05-postgres`);
  });

  it('search answers a single common word that recall abstains on, marking what recall would inject', async () => {
    const one = await rawGet(dash.url, `/search?q=service&in=${ids.channelKey}`);
    expect(one.body).toContain('The bot would inject nothing for this text (recall abstains); these are the closest lines.');
    const rows = one.body.match(/<tr><td class="score"[^]*?<\/tr>/g) ?? [];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.toLowerCase()).toContain('service');
    const full = await rawGet(dash.url, `/search?q=${encodeURIComponent('which database does the orders service use postgres')}&in=${ids.channelKey}`);
    expect(full.body).toMatch(/The bot would inject \d+ lines? for this text \(marked\)\./);
    expect(full.body).toMatch(/<td data-label="injected">yes<\/td><td class="nowrap">[^<]+<\/td><td class="text">[^<]*Postgres 16/);
  });

  it('the condensation page shows the frontmatter and both directions of supersession', async () => {
    const r = await rawGet(dash.url, `/channel/${ids.channelKey}/c/2025-02-01-database-again`);
    expect(r.body).toContain('message_count');
    expect(r.body).toMatch(/Supersedes<\/h2><a href="[^"]*2025-01-10-database"/);
    expect(r.body).toMatch(/Superseded by<\/h2><a href="[^"]*2025-03-05-postgres"/);
  });

  it('planted HTML is escaped, javascript: links are dropped, and pages forbid every script (CSP)', async () => {
    for (const p of [`/channel/${ids.channelKey}`, `/channel/${ids.channelKey}/c/2025-03-09-planted`, '/search?q=planted+click']) {
      const r = await rawGet(dash.url, p);
      // Shown as text, never as markup.
      expect(r.body).toContain('&lt;script&gt;window.__pwned=1');
      expect(r.body).not.toMatch(/<script|<img|<[^>]*\sonerror=|href="javascript:/i);
      expect(r.headers['content-security-policy']).toMatch(/default-src 'none'/);
      expect(r.headers['content-security-policy']).not.toMatch(/script-src/);
    }
  });

  it('MEMORY.md entries show provenance and superseded ones struck through; the filter narrows them', async () => {
    const r = await rawGet(dash.url, `/channel/${ids.channelKey}`);
    expect(r.body).toMatch(/<del>The orders service uses MySQL<\/del> → m-aaaa01/);
    expect(r.body).toContain('<span class="meta">m-aaaa01 · ana · 2025-03-05</span>');
    const f = await rawGet(dash.url, `/channel/${ids.channelKey}?filter=widget+7`);
    expect(f.body).toContain('generated fact 7 about');
    expect(f.body).not.toContain('generated fact 8 about');
  });

  it('writes are refused', async () => {
    const u = new URL(dash.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: u.hostname, port: u.port, path: '/', method: 'POST' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('x');
    });
    expect(status).toBe(405);
  });
});

describe('dashboard token', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeAll(() => {
    tmp = makeTmpDir('minutes-dash-');
    generateDataRoot(tmp.dir);
  });
  afterAll(() => tmp.cleanup());

  it('with a token every request without it gets 401; header, query and cookie are accepted', async () => {
    const token = 'f3a9c1d2e4b5a6978877665544332211';
    const d = await startDashboard(tmp.dir, token);
    try {
      expect((await rawGet(d.url, '/')).status).toBe(401);
      expect((await rawGet(d.url, '/?token=wrong')).status).toBe(401);
      expect((await rawGet(d.url, '/', { 'x-minutes-token': token })).status).toBe(200);
      expect((await rawGet(d.url, '/', { authorization: `Bearer ${token}` })).status).toBe(200);
      const q = await rawGet(d.url, `/?token=${token}`);
      const cookie = String(q.headers['set-cookie']).split(';')[0]!;
      expect(cookie).toBe(`minutes_token=${token}`);
      expect((await rawGet(d.url, '/search?q=x', { cookie })).status).toBe(200);
    } finally {
      await d.close();
    }
  });

  it('?token= leaves the address bar: the cookie is set and the browser is sent to the same page without it', async () => {
    const token = 'f3a9c1d2e4b5a6978877665544332211';
    const d = await startDashboard(tmp.dir, token);
    try {
      const q = await rawGet(d.url, `/search?q=orders&token=${token}&in=${GUILD}%2F${CHANNEL}`);
      expect(q.status).toBe(303);
      expect(q.headers.location).toBe(`/search?q=orders&in=${GUILD}%2F${CHANNEL}`);
      expect(String(q.headers['set-cookie'])).toMatch(/^minutes_token=f3a9[^;]*; HttpOnly; SameSite=Strict/);
      expect((await rawGet(d.url, `/?token=${token}`)).headers.location).toBe('/');
      // Never to another site: `//host` in a Location is a link to that host.
      expect((await rawGet(d.url, `/.//evil.example/x?token=${token}`)).headers.location).toBe('/evil.example/x');
      // The pages it serves carry the token in no link or form.
      const cookie = String(q.headers['set-cookie']).split(';')[0]!;
      const home = await rawGet(d.url, '/', { cookie });
      expect(home.status).toBe(200);
      expect(home.body).not.toContain(token);
      const page = await rawGet(d.url, `/channel/${GUILD}/${CHANNEL}`, { cookie });
      expect(page.body).not.toContain(token);
    } finally {
      await d.close();
    }
  });
});

describe('dashboard audit flags', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeAll(() => {
    tmp = makeTmpDir('minutes-dash-');
  });
  afterAll(() => tmp.cleanup());

  it('the home page shows what the audit flags, and notices when the files change', async () => {
    const ids = generateDataRoot(tmp.dir);
    const d = await startDashboard(tmp.dir);
    try {
      expect((await rawGet(d.url, '/')).body).not.toMatch(/not folded in/);
      // A condensation the bot filed (it has a ledger key) that .minutes/context.json never took in.
      const { writeFileSync } = await import('node:fs');
      writeFileSync(
        `${tmp.dir}/${ids.channelKey}/condensations/2025-04-01-interrupted.md`,
        "---\ndate: '2025-04-01'\ntopic: Interrupted\nledger_key: k-1\n---\n**Decision:** x\n",
      );
      expect((await rawGet(d.url, '/')).body).toMatch(/1 condensation\(s\) not folded in/);
      // Resolved threads the bot's audit found without a condensation, queued for its sweep.
      expect((await rawGet(d.url, '/')).body).not.toMatch(/never condensed/);
      const { mkdirSync } = await import('node:fs');
      mkdirSync(`${tmp.dir}/${ids.channelKey}/.minutes`, { recursive: true });
      writeFileSync(
        `${tmp.dir}/${ids.channelKey}/.minutes/condense-queue.jsonl`,
        '{"threadId":"111","at":"2025-04-02T00:00:00Z"}\n{"threadId":"222","at":"2025-04-02T00:00:00Z"}\n{"threadId":"111","at":"2025-04-03T00:00:00Z"}\n',
      );
      expect((await rawGet(d.url, '/')).body).toMatch(/2 resolved thread\(s\) never condensed/);
    } finally {
      await d.close();
    }
  });
});

describe('dashboard without a token', () => {
  it('answers only loopback Host names (no DNS rebinding)', async () => {
    const tmp = makeTmpDir('minutes-dash-');
    generateDataRoot(tmp.dir);
    const d = await startDashboard(tmp.dir);
    try {
      expect((await rawGet(d.url, '/', { host: 'evil.example:8787' })).status).toBe(421);
      expect((await rawGet(d.url, '/', { host: 'localhost:8787' })).status).toBe(200);
      expect((await rawGet(d.url, '/', { host: '[::1]:8787' })).status).toBe(200);
      expect((await rawGet(d.url, '/')).status).toBe(200);
    } finally {
      await d.close();
      tmp.cleanup();
    }
  });
});
