import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli';

const PACKAGE_VERSION = (JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

describe('minutes --version', () => {
  it.each(['--version', '-V'])("%s prints package.json's version alone and exits 0", async (flag) => {
    const r = await runCli([flag], { env: {}, cwd: __dirname });
    expect(r).toEqual({ code: 0, stdout: `${PACKAGE_VERSION}\n`, stderr: '' });
  });

  it('--help names the flag', async () => {
    const r = await runCli(['--help'], { env: {}, cwd: __dirname });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/-V, --version\s+print the version/);
  });
});
