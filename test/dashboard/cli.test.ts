import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dashboardCacheDir, runDashboard } from '../../src/cli/commands/dashboard';
import { withCapturedIO } from '../helpers/cli';
import { CHANNEL, generateDataRoot, GUILD } from '../helpers/dashboardData';
import { makeTmpDir } from '../helpers/tmp';
import { hashTree, scoreRows } from './helpers';

/** What `openssl rand -hex 16` gives: 32 characters. */
const TOKEN = '9b1c0e6f4a2d8b7c5e3f1a0d9c8b7a6f';

describe('minutes dashboard (command)', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeEach(() => {
    tmp = makeTmpDir('minutes-dash-cli-');
    generateDataRoot(path.join(tmp.dir, 'root'));
  });
  afterEach(() => tmp.cleanup());

  it('refuses a non-loopback --host without MINUTES_DASHBOARD_TOKEN, and says why', async () => {
    const r = await withCapturedIO((io) => runDashboard({ host: '0.0.0.0', port: 0 }, io), {
      env: { MINUTES_DATA_DIR: path.join(tmp.dir, 'root') },
      cwd: tmp.dir,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/MINUTES_DASHBOARD_TOKEN/);
    expect(r.stdout).toBe('');
  });

  it('prints its URL, serves the data root with a token off loopback, and needs no Discord token or model key', async () => {
    const ac = new AbortController();
    const env = { MINUTES_DATA_DIR: path.join(tmp.dir, 'root'), MINUTES_DASHBOARD_TOKEN: TOKEN };
    const before = hashTree(path.join(tmp.dir, 'root'));
    const running = withCapturedIO(
      async (io) => {
        const p = runDashboard({ host: '0.0.0.0', port: 0, semantic: 'off' }, io, ac.signal);
        // Wait for the URL line, then browse with and without the token.
        const stdout = io.stdout as NodeJS.ReadableStream & NodeJS.WritableStream;
        const line = await new Promise<string>((resolve) => stdout.on('data', (d: Buffer) => resolve(String(d))));
        const port = /:(\d+)\//.exec(line)![1];
        expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(401);
        const ok = await fetch(`http://127.0.0.1:${port}/`, { headers: { 'x-minutes-token': TOKEN } });
        expect(ok.status).toBe(200);
        expect(await ok.text()).toContain('#backend');
        ac.abort();
        return p;
      },
      { env, cwd: tmp.dir },
    );
    const r = await running;
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^minutes dashboard: http:\/\/0\.0\.0\.0:\d+\/ .*token required/);
    expect(hashTree(path.join(tmp.dir, 'root'))).toBe(before);
  });

  it('refuses a folder that does not look like a data root, in one line', async () => {
    const home = path.join(tmp.dir, 'home');
    fs.mkdirSync(path.join(home, 'Documents'), { recursive: true });
    const r = await withCapturedIO((io) => runDashboard({ port: 0, semantic: 'off' }, io), { env: { MINUTES_DATA_DIR: home }, cwd: tmp.dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^minutes dashboard: .*home does not look like a Minutes data root .*MINUTES_DATA_DIR[^\n]*\n$/);
  });

  it('refuses a token short enough to guess, in one line saying how to make one', async () => {
    for (const short of ['abc', 'x'.repeat(23)]) {
      const r = await withCapturedIO((io) => runDashboard({ host: '0.0.0.0', port: 0 }, io), {
        env: { MINUTES_DATA_DIR: path.join(tmp.dir, 'root'), MINUTES_DASHBOARD_TOKEN: short },
        cwd: tmp.dir,
      });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(`MINUTES_DASHBOARD_TOKEN is ${short.length} characters, too short to resist guessing: use at least 24`);
      expect(r.stderr).toContain('openssl rand -hex 32');
      expect(r.stderr).not.toContain(short);
    }
  });

  it('with the packaged sentence model, the first search right after start finds what the second does', async () => {
    const ac = new AbortController();
    const env = { MINUTES_DATA_DIR: path.join(tmp.dir, 'root'), MINUTES_VECTOR_CACHE: path.join(tmp.dir, 'vectors') };
    const pages: string[] = [];
    const r = await withCapturedIO(
      async (io) => {
        const p = runDashboard({ port: 0, semantic: 'local' }, io, ac.signal);
        const stdout = io.stdout as NodeJS.ReadableStream & NodeJS.WritableStream;
        const line = await new Promise<string>((resolve) => stdout.on('data', (d: Buffer) => resolve(String(d))));
        const port = /:(\d+)\//.exec(line)![1];
        const q = `http://127.0.0.1:${port}/search?q=${encodeURIComponent('which database engine stores the orders')}&in=${GUILD}%2F${CHANNEL}`;
        for (let i = 0; i < 2; i++) pages.push(await (await fetch(q)).text());
        ac.abort();
        return p;
      },
      { env, cwd: tmp.dir },
    );
    expect(r.code).toBe(0);
    expect(pages[0]).toContain('recall meaning: local');
    const rows = scoreRows(pages[0]);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((x) => x.semantic !== null)).toBe(true);
    expect(Math.max(...rows.map((x) => x.semantic ?? 0))).toBeGreaterThan(0.3);
    expect(pages[1]).toBe(pages[0]);
  });

  it("keeps recall's vector cache out of the data root", () => {
    const root = path.join(tmp.dir, 'root');
    expect(dashboardCacheDir(root, path.join(root, '.cache', 'vectors'))).toBe(path.join(os.tmpdir(), 'minutes-dashboard-vectors'));
    expect(dashboardCacheDir(root, path.join(tmp.dir, 'elsewhere'))).toBe(path.join(tmp.dir, 'elsewhere'));
  });
});
