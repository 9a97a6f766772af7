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

  it('a folder that is not a data root (a home folder, a channel folder) is one line and exit 2, not "All 0 channel folders are consistent"', async () => {
    const home = path.join(tmp.dir, 'home');
    fs.mkdirSync(path.join(home, 'projects'), { recursive: true });
    fs.writeFileSync(path.join(home, 'notes.txt'), 'hello\n');
    const r = await runCli(['audit'], { env: { MINUTES_DATA_DIR: home }, cwd: tmp.dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^minutes audit: .*home does not look like a Minutes data root \(no server folders, local\/ or workspace\/ in it\): set MINUTES_DATA_DIR/,
      ),
    ]);

    const chan = path.join(tmp.dir, 'chan');
    fs.mkdirSync(chan);
    fs.writeFileSync(path.join(chan, 'MEMORY.md'), '- a fact\n');
    const c = await runCli(['audit'], { env: { MINUTES_DATA_DIR: chan }, cwd: tmp.dir });
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/chan is one channel's folder, not a data root: .*or use --channel-dir .*chan\n$/);
  });

  it('a fresh data root (empty, or only the vector cache and workspace/) passes, and says it has no channels yet', async () => {
    const root = path.join(tmp.dir, 'channels');
    fs.mkdirSync(path.join(root, '.cache'), { recursive: true });
    const r = await runCli(['audit'], { env: { MINUTES_DATA_DIR: root }, cwd: tmp.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`No channel folders in ${root} yet: the bot makes one the first time it answers in a channel.\n`);
    fs.mkdirSync(path.join(root, 'workspace'));
    fs.mkdirSync(path.join(root, 'local', 'ops'), { recursive: true });
    const one = await runCli(['audit'], { env: { MINUTES_DATA_DIR: root }, cwd: tmp.dir });
    expect(one.code).toBe(0);
    expect(one.stdout).toBe('The channel folder is consistent.\n');
  });

  it('audit --channel-dir does not mention DISCORD_TOKEN (it never logs in for one folder)', async () => {
    const dir = path.join(tmp.dir, 'chan');
    fs.mkdirSync(dir);
    const r = await runCli(['audit', '--channel-dir', dir], { env: {}, cwd: tmp.dir });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/DISCORD_TOKEN/);
  });
});
