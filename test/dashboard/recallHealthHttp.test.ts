import fs from 'node:fs';
import path from 'node:path';
import { createDashboard } from '../../src/dashboard/server';
import { silentLogger } from '../../src/log/logger';
import { buildRecallService } from '../../src/recall/service';
import { makeTmpDir } from '../helpers/tmp';
import { hashTree } from './helpers';

/**
 * Issue 41 §4 over HTTP: the channel page's "Recall health" section, read from the conversation's
 * log.jsonl relative to the dashboard's clock: replies with and without what recall did (old lines
 * count as unknown), the lines injected most often as MEMORY.md holds them now, the last replies
 * and why, a note when the log is longer than the part read, and nothing written.
 */
const NOW = new Date('2026-11-28T12:00:00Z');
const ago = (days: number) => new Date(NOW.getTime() - days * 86_400_000).toISOString();
const MEMORY = [
  '# Channel Memory',
  '',
  '## Durable Facts',
  '',
  '- [m-aa0001] the orders database runs Postgres 16 on db-1 [from: al, 2026-11-01]',
  '- [m-aa0002] releases go out on Tuesdays [from: bea, 2026-11-02]',
  '',
].join('\n');

let seq = 0;
function turn(at: string, content: string, recall?: unknown): string {
  const id = String(++seq);
  return [
    { type: 'message', id, author: { id: '9', name: 'al' }, at, content, addressed: true },
    { type: 'reply', at, content: 'ok', inReplyTo: [id], model: 'm', ...(recall === undefined ? {} : { recall }) },
  ]
    .map((r) => `${JSON.stringify(r)}\n`)
    .join('');
}

async function get(url: string): Promise<{ status: number; body: string; csp: string | null }> {
  const r = await fetch(url);
  return { status: r.status, body: await r.text(), csp: r.headers.get('content-security-policy') };
}

function section(html: string): string {
  const at = html.indexOf('<section id="recall-health">');
  expect(at).toBeGreaterThan(0);
  return html.slice(at, html.indexOf('</section>', at) + '</section>'.length);
}

describe('the channel page shows recall health from the log', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let dash: ReturnType<typeof createDashboard>;
  let url: string;
  const recall = buildRecallService({ semantic: { mode: 'off', cacheDir: '' }, logger: silentLogger() });
  let chan: string;

  beforeAll(async () => {
    tmp = makeTmpDir('minutes-dash-health-');
    chan = path.join(tmp.dir, 'local', 'orders');
    fs.mkdirSync(chan, { recursive: true });
    fs.mkdirSync(path.join(tmp.dir, 'local', 'quiet'), { recursive: true });
    fs.writeFileSync(path.join(chan, 'MEMORY.md'), MEMORY);
    fs.writeFileSync(
      path.join(chan, 'log.jsonl'),
      turn(ago(45), 'from before the windows', { lines: [{ file: 'MEMORY.md', id: 'm-aa0002' }] }) +
        turn(ago(20), 'logged before replies recorded recall') +
        turn(ago(10), 'which postgres version?', { lines: [{ file: 'MEMORY.md', id: 'm-aa0001' }] }) +
        `not json at all\n{"type":"reply","at":"${ago(15)}","recall":7}\n` +
        turn(ago(3), 'postgres on db-1?', {
          lines: [
            { file: 'MEMORY.md', id: 'm-aa0001' },
            { file: 'HISTORY.md', text: 'Moved orders to Postgres.' },
          ],
        }) +
        turn(ago(2), 'regex for an email <img src=x onerror=alert(1)>', { silence: 'closer-to-tech' }) +
        turn(ago(1), 'when do releases go?', {
          lines: [
            { file: 'MEMORY.md', id: 'm-aa0002' },
            { file: 'MEMORY.md', id: 'm-forgot' },
          ],
        }),
    );
    dash = createDashboard({ root: tmp.dir, host: '127.0.0.1', port: 0, recall, clock: () => NOW });
    url = await dash.listen();
  });
  afterAll(async () => {
    await dash.close();
    await recall.close();
    tmp.cleanup();
  });

  it('7- and 30-day counts and shares, the lines injected most often, the last replies and why, escaped, within the CSP', async () => {
    const before = hashTree(tmp.dir);
    const r = await get(`${url}channel/local/orders`);
    expect(r.status).toBe(200);
    expect(r.csp).toContain("default-src 'none'");
    const s = section(r.body);
    // 7 days: three replies, two injected, one abstained. 30 days: the malformed reply line (recall: 7) and the old one are unknown.
    expect(s).toContain('<tr><td>last 7 days</td><td>3</td><td>2 (67%)</td><td>1 (33%)</td><td>0 (0%)</td></tr>');
    expect(s).toContain('<tr><td>last 30 days</td><td>6</td><td>3 (50%)</td><td>1 (17%)</td><td>2 (33%)</td></tr>');
    // The most injected line first, as MEMORY.md holds it now; an entry gone from MEMORY.md by its id.
    expect(s).toMatch(
      /<tr><td>2<\/td><td class="nowrap">MEMORY\.md<\/td><td><span class="muted">m-aa0001<\/span> the orders database runs Postgres 16 on db-1<\/td><\/tr>/,
    );
    expect(s).toContain('m-forgot (no longer in MEMORY.md)');
    expect(s).toContain('closer to a generic technical question than to the channel <span class="muted">(closer-to-tech)</span>');
    expect(s).toContain('regex for an email &lt;img src=x onerror=alert(1)&gt;');
    expect(s).not.toContain('<img');
    expect(s).toContain('logged before replies recorded recall');
    expect(s).not.toContain('longer than the part read');
    // The newest reply first.
    expect(s.indexOf('when do releases go?')).toBeLessThan(s.indexOf('which postgres version?'));
    expect(hashTree(tmp.dir)).toBe(before);
  });

  it("a private thread's page: its own log, entries looked up in the thread's and the parent's MEMORY.md, and never a path the log names", async () => {
    const g = '100000000000000001';
    const c = '200000000000000002';
    const t = '300000000000000003';
    const parent = path.join(tmp.dir, g, c);
    const thread = path.join(parent, 'threads', t);
    fs.mkdirSync(thread, { recursive: true });
    fs.writeFileSync(path.join(parent, 'MEMORY.md'), MEMORY);
    fs.writeFileSync(
      path.join(thread, 'MEMORY.md'),
      '# Channel Memory\n\n## Facts\n\n- [m-bb0001] the thread settled on blue-green deploys [from: cy, 2026-11-20]\n',
    );
    // A MEMORY.md outside what this conversation's recall reads: a log line naming it is not followed.
    fs.mkdirSync(path.join(tmp.dir, 'elsewhere'), { recursive: true });
    fs.writeFileSync(path.join(tmp.dir, 'elsewhere', 'MEMORY.md'), '- [m-cc0001] a secret elsewhere\n');
    const lines = [
      { file: `threads/${t}/MEMORY.md`, id: 'm-bb0001' },
      { file: 'MEMORY.md', id: 'm-aa0002' },
      { file: '../../elsewhere/MEMORY.md', id: 'm-cc0001' },
    ];
    fs.writeFileSync(path.join(thread, 'log.jsonl'), turn(ago(1), 'how do we deploy?', { lines }));
    const open = createDashboard({ root: tmp.dir, host: '127.0.0.1', port: 0, recall, clock: () => NOW, includePrivate: true });
    try {
      const s = section((await get(`${await open.listen()}channel/${g}/${c}/${t}`)).body);
      expect(s).toContain('<span class="muted">m-bb0001</span> the thread settled on blue-green deploys');
      expect(s).toContain('<span class="muted">m-aa0002</span> releases go out on Tuesdays');
      expect(s).toContain('m-cc0001 (no longer in ../../elsewhere/MEMORY.md)');
      expect(s).not.toContain('a secret elsewhere');
      // The parent channel's page reads the parent's log (none here), not the thread's.
      expect(section((await get(`${url}channel/${g}/${c}`)).body)).not.toContain('how do we deploy?');
    } finally {
      await open.close();
    }
  });

  it('a channel with no log says so', async () => {
    const s = section((await get(`${url}channel/local/quiet`)).body);
    expect(s).toContain('<tr><td>last 7 days</td><td>0</td><td>0</td><td>0</td><td>0</td></tr>');
    expect(s).toContain('no reply in the part of the log read');
  });

  it('a log longer than the part read: only its end is read, and the page says from when', async () => {
    const big = path.join(tmp.dir, 'local', 'busy');
    fs.mkdirSync(big, { recursive: true });
    fs.writeFileSync(path.join(big, 'MEMORY.md'), MEMORY);
    // ~2.6 MB of old turns, then one recent reply.
    const filler = turn(ago(25), 'x'.repeat(2000), { silence: 'no-words' });
    const fd = fs.openSync(path.join(big, 'log.jsonl'), 'w');
    for (let i = 0; i < 1200; i++) fs.writeSync(fd, filler.replace(/"id":"\d+"/, `"id":"f${i}"`).replace(/"inReplyTo":\["\d+"\]/, `"inReplyTo":["f${i}"]`));
    fs.writeSync(fd, turn(ago(1), 'the recent one', { silence: 'closer-to-chat' }));
    fs.closeSync(fd);
    const s = section((await get(`${url}channel/local/busy`)).body);
    expect(s).toContain('The log is longer than the part read (its last 2 MB): these figures start at');
    expect(s).toContain('the recent one');
    // Fewer than the 1,201 replies written were counted.
    const counted = Number(/<tr><td>last 30 days<\/td><td>(\d+)<\/td>/.exec(s)![1]);
    expect(counted).toBeGreaterThan(500);
    expect(counted).toBeLessThan(1201);
  });
});
