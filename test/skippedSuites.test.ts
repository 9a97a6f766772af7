import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeTmpDir } from './helpers/tmp';

/**
 * Off CI, a suite that needs redis-server on a machine without it is skipped, and the run ends with
 * one line naming it and why (not a warning lost among hundreds of lines); in CI it fails instead.
 * Each case runs jest itself on one Redis suite, with a PATH that holds only node (a link to it:
 * node's own folder may hold redis-server too).
 */
const ROOT = path.resolve(__dirname, '..');
const JEST = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');

let tmp: ReturnType<typeof makeTmpDir>;
beforeAll(() => {
  tmp = makeTmpDir();
  fs.mkdirSync(path.join(tmp.dir, 'bin'));
  fs.symlinkSync(process.execPath, path.join(tmp.dir, 'bin', 'node'));
});
afterAll(() => tmp.cleanup());

function jestWithoutRedis(env: NodeJS.ProcessEnv): { code: number | null; lines: string[] } {
  const r = spawnSync(process.execPath, [JEST, '--ci', 'test/llm/sharedLimit.test.ts'], {
    cwd: ROOT,
    env: { PATH: path.join(tmp.dir, 'bin'), HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, lines: `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim()) };
}

describe('suites skipped for want of redis-server', () => {
  it('off CI: skipped, and the run ends with one line naming the suite and why', () => {
    const r = jestWithoutRedis({});
    expect(r.code).toBe(0);
    expect(r.lines.at(-1)).toBe(
      'Skipped 1 suite: shared-limit tests — redis-server is not on PATH (apt-get install -y redis-server runs them; in CI they fail instead)',
    );
  }, 120_000);

  it('in CI: the suite fails, naming what to install; nothing is called skipped', () => {
    const r = jestWithoutRedis({ CI: 'true' });
    expect(r.code).toBe(1);
    expect(r.lines.join('\n')).toContain('redis-server is not on PATH: install it (apt-get install -y redis-server)');
    expect(r.lines.some((l) => l.startsWith('Skipped '))).toBe(false);
  }, 120_000);
});

describe("the run's last line", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { summary } = require('./helpers/skippedSuitesTeardown') as { summary: (text: string) => string | null };
  const line = (what: string, why: string) => `${JSON.stringify({ what, why })}\n`;

  it('groups suites by reason, each named once, in the order noted; says nothing when nothing was skipped', () => {
    expect(summary('')).toBeNull();
    expect(summary(line('a', 'no redis') + line('b', 'no redis') + line('c', 'no docker') + line('a', 'no redis'))).toBe(
      'Skipped 3 suites: a, b — no redis; c — no docker',
    );
  });
});
