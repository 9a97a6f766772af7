import http from 'node:http';
import { createDashboard, DashboardOptions } from '../../src/dashboard/server';
import { silentLogger } from '../../src/log/logger';
import { buildRecallService } from '../../src/recall/service';
import { generateDataRoot } from '../helpers/dashboardData';
import { makeTmpDir } from '../helpers/tmp';
import { runCli } from '../helpers/cli';

/**
 * The token's cookie: HttpOnly and SameSite=Strict always, and Secure when the request reached the
 * dashboard over TLS, which behind a reverse proxy only a proxy the operator names can say
 * (`--trust-proxy`, `X-Forwarded-Proto: https`): a client's own header is never believed.
 */
const TOKEN = 'f3a9c2d4e5b6a7980123456789abcdef';

let tmp: ReturnType<typeof makeTmpDir>;
beforeAll(() => {
  tmp = makeTmpDir('minutes-dash-cookie-');
  generateDataRoot(tmp.dir, { condensations: 1, entries: 2 });
});
afterAll(() => tmp.cleanup());

async function withDashboard<T>(o: Partial<DashboardOptions>, fn: (url: string) => Promise<T>): Promise<T> {
  const recall = buildRecallService({ semantic: { mode: 'off', cacheDir: '' }, logger: silentLogger() });
  const d = createDashboard({ root: tmp.dir, host: '127.0.0.1', port: 0, token: TOKEN, recall, ...o } as DashboardOptions);
  try {
    return await fn(await d.listen());
  } finally {
    await d.close();
    await recall.close();
  }
}

/** The Set-Cookie header of one GET (with the token as a header), from 127.0.0.1. */
function cookieOf(url: string, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL('/', url), { headers: { 'x-minutes-token': TOKEN, ...headers } }, (res) => {
      res.resume();
      resolve(String(res.headers['set-cookie'] ?? ''));
    });
    req.on('error', reject);
  });
}

const attributes = (cookie: string) =>
  cookie
    .split(';')
    .slice(1)
    .map((s) => s.trim());

describe("the dashboard token's cookie", () => {
  it('is HttpOnly and SameSite=Strict, and not Secure over plain HTTP, whatever a client claims', async () => {
    await withDashboard({}, async (url) => {
      const plain = await cookieOf(url);
      expect(plain).toMatch(new RegExp(`^minutes_token=${TOKEN};`));
      expect(attributes(plain)).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/']));
      expect(attributes(plain)).not.toContain('Secure');
      // No proxy is trusted: a client's own X-Forwarded-Proto changes nothing.
      expect(attributes(await cookieOf(url, { 'x-forwarded-proto': 'https' }))).not.toContain('Secure');
    });
  });

  it('is Secure when a proxy the operator trusts says the request came over https, and only then', async () => {
    await withDashboard({ trustProxy: ['127.0.0.1'] }, async (url) => {
      expect(attributes(await cookieOf(url, { 'x-forwarded-proto': 'https' }))).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Secure']));
      // A chain of proxies: the one nearest the dashboard (the last value) is the one that saw the request come in.
      expect(attributes(await cookieOf(url, { 'x-forwarded-proto': 'http, https' }))).toContain('Secure');
      expect(attributes(await cookieOf(url, { 'x-forwarded-proto': 'http' }))).not.toContain('Secure');
      expect(attributes(await cookieOf(url))).not.toContain('Secure');
    });
    // A proxy at another address: this peer's header is not believed.
    await withDashboard({ trustProxy: ['10.0.0.7'] }, async (url) => {
      expect(attributes(await cookieOf(url, { 'x-forwarded-proto': 'https' }))).not.toContain('Secure');
    });
  });

  it('minutes dashboard --trust-proxy takes IP addresses only, and says so in one line', async () => {
    const r = await runCli(['dashboard', '--trust-proxy', 'proxy.internal'], {
      env: { MINUTES_DATA_DIR: tmp.dir, MINUTES_DASHBOARD_TOKEN: TOKEN },
      cwd: tmp.dir,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('minutes dashboard: --trust-proxy takes the IP address of your reverse proxy (e.g. 127.0.0.1), not "proxy.internal"\n');
  });
});
