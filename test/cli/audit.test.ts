import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';

describe('audit: what it checks is what it says', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeEach(() => {
    tmp = makeTmpDir();
  });
  afterEach(() => {
    tmp.cleanup();
  });

  it('audit of a data root that does not exist says so and exits 2 (not "All 0 channel folders are consistent")', async () => {
    const r = await runCli(['audit'], { env: { MINUTES_DATA_DIR: path.join(tmp.dir, 'nonexistent') }, cwd: tmp.dir });
    expect(r.code).toBe(2);
    expect(r.stdout).not.toMatch(/consistent/);
    expect(r.stderr).toMatch(/nonexistent does not exist.*MINUTES_DATA_DIR/);
    expect(fs.existsSync(path.join(tmp.dir, 'nonexistent'))).toBe(false);
  });

  it('audit of a data root that is a file says so and exits 2', async () => {
    const file = path.join(tmp.dir, 'passwd');
    fs.writeFileSync(file, 'root:x:0:0\n');
    const r = await runCli(['audit'], { env: { MINUTES_DATA_DIR: file }, cwd: tmp.dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/passwd is not a folder/);
  });

  it('audit --channel-dir does not mention DISCORD_TOKEN (it never logs in for one folder)', async () => {
    const dir = path.join(tmp.dir, 'chan');
    fs.mkdirSync(dir);
    const r = await runCli(['audit', '--channel-dir', dir], { env: {}, cwd: tmp.dir });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/DISCORD_TOKEN/);
  });
});
