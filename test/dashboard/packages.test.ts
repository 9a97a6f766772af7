import { generateDataRoot } from '../helpers/dashboardData';
import { makeTmpDir } from '../helpers/tmp';
import { hashTree, startDashboard } from './helpers';
import { ChannelStore } from '../../src/memory/store';
import { silentLogger } from '../../src/log/logger';
import { buildRecallService } from '../../src/recall/service';
import { createPackage } from '../../src/packages/library';
import { activatePackage } from '../../src/packages/activation';

describe('dashboard: context packages', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let ids: ReturnType<typeof generateDataRoot>;
  let dash: Awaited<ReturnType<typeof startDashboard>>;
  beforeAll(async () => {
    tmp = makeTmpDir('minutes-dash-');
    ids = generateDataRoot(tmp.dir, { condensations: 4, entries: 10 });
    const store = new ChannelStore({ root: tmp.dir });
    const recall = buildRecallService({ semantic: { mode: 'off', cacheDir: '' }, logger: silentLogger() });
    const deps = { store, search: (r: Parameters<typeof recall.search>[0]) => recall.search(r), clock: () => new Date('2025-03-10T10:00:00Z') };
    const channel = { kind: 'discord' as const, guildId: ids.guild, channelId: ids.channel };
    await createPackage(deps, { name: 'payloads', from: channel, query: 'script javascript payload', actor: 'ana', title: '<b>Payloads</b>' });
    await createPackage(deps, {
      name: 'secret-plans',
      from: { ...channel, threadId: ids.thread, privateThread: true },
      query: 'Zanzibar acquisition',
      actor: 'ana',
    });
    await activatePackage({ store }, { target: { kind: 'discord', guildId: ids.guild, channelId: '999999999999999999' }, name: 'payloads', actor: 'ana' });
    await recall.close();
    dash = await startDashboard(tmp.dir);
  });
  afterAll(async () => {
    await dash.close();
    tmp.cleanup();
  });
  const get = async (p: string) => {
    const r = await fetch(dash.url.replace(/\/$/, '') + p);
    return { status: r.status, body: await r.text() };
  };

  it("lists a server's packages and explains one, escaped; a private thread's package is neither listed nor shown; nothing is written", async () => {
    const before = hashTree(tmp.dir);
    const home = await get('/');
    expect(home.body).toContain('<a href="/packages">Context packages (1)</a>');
    const list = await get('/packages');
    expect(list.status).toBe(200);
    expect(list.body).toContain(`<a href="/package/${ids.guild}/payloads">payloads</a>`);
    expect(list.body).toContain('&lt;b&gt;Payloads&lt;/b&gt;');
    expect(list.body).not.toContain('secret-plans');
    const one = await get(`/package/${ids.guild}/payloads`);
    expect(one.status).toBe(200);
    // A channel the bot recorded no name for is shown by its label.
    expect(one.body).toContain(`Active in: ${ids.guild}/999999999999999999 (since`);
    // The planted markup is shown as text: no element, no link made of it.
    expect(one.body).not.toMatch(/<script|<img|href="javascript/i);
    expect(one.body).toMatch(/<pre>&lt;script>|<pre>[^<]*&lt;script&gt;/);
    expect((await get(`/package/${ids.guild}/secret-plans`)).status).toBe(404);
    expect((await get(`/package/${ids.guild}/..%2Fx`)).status).toBe(404);
    expect((await get('/package/not-a-server/payloads')).status).toBe(404);
    expect(hashTree(tmp.dir)).toBe(before);
  });
});
