import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { shardLayoutFile } from '../../src/memory/layout';
import { runCli } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';

/** A guild id created at `ms` after Discord's epoch: its shard of n is ms % n. */
const guildAt = (ms: number) => ((BigInt(ms) << 22n) | 0x77n).toString();

/** A data root holding these guilds (a channel with a MEMORY.md of `bytes` bytes each), and a recorded layout if given. */
function dataRoot(root: string, guilds: Record<string, number>, layout?: { total: number; shards: number[] }): string {
  for (const [g, bytes] of Object.entries(guilds)) {
    fs.mkdirSync(path.join(root, g, '900000000000000001'), { recursive: true });
    fs.writeFileSync(path.join(root, g, '900000000000000001', 'MEMORY.md'), 'x'.repeat(bytes));
  }
  fs.mkdirSync(path.join(root, 'workspace'), { recursive: true });
  if (layout) {
    fs.mkdirSync(path.dirname(shardLayoutFile(root)), { recursive: true });
    fs.writeFileSync(shardLayoutFile(root), JSON.stringify(layout));
  }
  return root;
}

let tmp: ReturnType<typeof makeTmpDir>;
beforeEach(() => (tmp = makeTmpDir()));
afterEach(() => tmp.cleanup());

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(args, { env, cwd: tmp.dir });
/** What `minutes start` needs before it looks at shards; no Discord or model is contacted by the refusals below. */
const startEnv = (dataDir: string, more: NodeJS.ProcessEnv = {}) => ({ DISCORD_TOKEN: 't', ANTHROPIC_API_KEY: 'k', MINUTES_DATA_DIR: dataDir, ...more });

describe('minutes start with a shard list', () => {
  it.each([
    [['--shards', '0-3,8'], /^minutes: --shards 0-3,8: expected a positive whole number or 'auto' \(a list of shard ids such as 0-3,8 needs --total-shards\)$/],
    [['--shards', '3-1', '--total-shards', '4'], /^minutes: --shards 3-1: the range 3-1 runs backwards$/],
    [['--shards', '0,4', '--total-shards', '4'], /^minutes: --shards 0,4: there is no shard 4 in 4 \(ids run from 0 to 3\)$/],
    [['--total-shards', '4'], /^minutes: --total-shards 4 needs --shards with the ids of the shards this host runs/],
    [['--shards', 'auto', '--total-shards', '4'], /^minutes: --shards auto cannot go with --total-shards/],
    [
      ['--shards', '0-x', '--total-shards', '4'],
      /--shards .*expected a positive whole number or 'auto' \(or this host's shard ids, such as 0-3,8, with --total-shards\)/,
    ],
    [['--shards', '0-1', '--total-shards', '0'], /--total-shards .*expected a positive whole number/],
  ])('refuses %p with one line and exit code 2', async (args, message) => {
    const r = await cli(['start', ...args], startEnv(path.join(tmp.dir, 'data')));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(message);
    expect(fs.existsSync(path.join(tmp.dir, 'data'))).toBe(false);
  });

  it('refuses part of the shards without REDIS_URL (the hosts take identify turns through it), in one line', async () => {
    const r = await cli(['start', '--shards', '0-3,8', '--total-shards', '16'], startEnv(path.join(tmp.dir, 'data')));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'minutes: running only shards 0-3,8 of 16 on this host needs REDIS_URL: the hosts take turns identifying with Discord (one identify per 5 s for the whole bot) and share the model limits through it\n',
    );
  });

  it('refuses a start with another total than the data root recorded, naming `minutes shards plan`, and leaves the record', async () => {
    const data = dataRoot(path.join(tmp.dir, 'data'), { [guildAt(0)]: 1 }, { total: 2, shards: [0] });
    for (const args of [['--shards', '4'], [], ['--shards', '0-1', '--total-shards', '4']]) {
      const r = await cli(['start', ...args], startEnv(data, { REDIS_URL: 'redis://127.0.0.1:1' }));
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(
        /^minutes: this data root was last started with shards 0 of 2 and holds only those servers' folders, so .* would answer servers without their memory: move the folders first \(`minutes shards plan --total \d+ --hosts N --data-dir DIR…` lists them\), then start once with --reshard \(recorded in .*shards\.json\)\n$/,
      );
    }
    expect(JSON.parse(fs.readFileSync(shardLayoutFile(data), 'utf8'))).toEqual({ total: 2, shards: [0] });
  });
});

describe('minutes shards plan', () => {
  it('--json: the shards and server folders of each host, and the folders that move, with their sizes', async () => {
    // Today: shards 0 and 1 of 2 on hosts a and b. Tomorrow: 3 shards over 2 hosts (0 | 1-2).
    const a = dataRoot(path.join(tmp.dir, 'a'), { [guildAt(0)]: 10, [guildAt(2)]: 20, [guildAt(4)]: 30 }, { total: 2, shards: [0] });
    const b = dataRoot(path.join(tmp.dir, 'b'), { [guildAt(1)]: 40, [guildAt(3)]: 50 }, { total: 2, shards: [1] });
    const r = await cli(['shards', 'plan', '--total', '3', '--hosts', '2', '--data-dir', 'a', 'b', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.endsWith('\n') && r.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stdout)).toEqual({
      total: 3,
      hosts: [
        { host: 0, shards: [0], guilds: [guildAt(0), guildAt(3)] },
        { host: 1, shards: [1, 2], guilds: [guildAt(1), guildAt(2), guildAt(4)] },
      ],
      moves: [
        { guild: guildAt(2), from: 0, to: 1, bytes: 20 },
        { guild: guildAt(3), from: 1, to: 0, bytes: 50 },
        { guild: guildAt(4), from: 0, to: 1, bytes: 30 },
      ],
    });
    // Repeating the option works as listing several after it.
    const again = await cli(['shards', 'plan', '--total', '3', '--hosts', '2', '--data-dir', a, '--data-dir', b, '--json']);
    expect(again.stdout).toBe(r.stdout);
  });

  it("in words: each host's start command, and the moves with their data roots", async () => {
    dataRoot(path.join(tmp.dir, 'a'), { [guildAt(0)]: 10, [guildAt(1)]: 2048 }, { total: 1, shards: [0] });
    const r = await cli(['shards', 'plan', '--total', '4', '--hosts', '2', '--data-dir', 'a']);
    expect(r.code).toBe(0);
    const a = path.join(tmp.dir, 'a');
    expect(r.stdout).toBe(
      [
        '4 shards over 2 hosts:',
        `  host 0 (today ${a}): minutes start --shards 0-1 --total-shards 4, 2 server folders`,
        '  host 1 (a new host: an empty data root): minutes start --shards 2-3 --total-shards 4, 0 server folders',
        'No server folder moves: every one is already on the host that will serve it.',
        '',
      ].join('\n'),
    );
    const grow = await cli(['shards', 'plan', '--total', '2', '--hosts', '2', '--data-dir', 'a']);
    expect(grow.stdout).toContain(
      `Server folders to move (1, 2.0 KB), each to the new host's data root:\n  ${guildAt(1)}  2.0 KB  from host 0 (${a}) to host 1\n`,
    );
    expect(grow.stdout).toContain('rsync -a');
  });

  it('without data roots it plans the split alone; wrong arguments are one line and exit code 2', async () => {
    const r = await cli(['shards', 'plan', '--total', '16', '--hosts', '3', '--json']);
    expect(JSON.parse(r.stdout)).toEqual({
      total: 16,
      hosts: [
        { host: 0, shards: [0, 1, 2, 3, 4], guilds: [] },
        { host: 1, shards: [5, 6, 7, 8, 9], guilds: [] },
        { host: 2, shards: [10, 11, 12, 13, 14, 15], guilds: [] },
      ],
      moves: [],
    });
    const tooMany = await cli(['shards', 'plan', '--total', '2', '--hosts', '3']);
    expect([tooMany.code, tooMany.stderr]).toEqual([2, 'minutes shards plan: cannot split 2 shards over 3 hosts: each host runs at least one shard\n']);
    const missing = await cli(['shards', 'plan', '--total', '2', '--hosts', '1', '--data-dir', 'nowhere']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^minutes shards plan: --data-dir: the data root .*nowhere does not exist: set MINUTES_DATA_DIR/);
    const noTotal = await cli(['shards', 'plan', '--hosts', '1']);
    expect(noTotal.code).toBe(2);
    expect(noTotal.stderr).toMatch(/required option '--total <n>' not specified/);
  });
});

describe('minutes shards check', () => {
  it('exit 0 when the data root holds only the servers of its recorded shards', async () => {
    const data = dataRoot(path.join(tmp.dir, 'data'), { [guildAt(1)]: 1024, [guildAt(9)]: 1024, [guildAt(8)]: 1 }, { total: 8, shards: [0, 1] });
    const r = await cli(['shards', 'check', '--data-dir', data]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^${data} runs shards 0-1 of 8: 3 server folders of its own \\(2\\.0 KB\\)\\.\\nEvery server folder here is one of its shards'`),
    );
    const json = await cli(['shards', 'check', '--data-dir', data, '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ dataDir: data, total: 8, shards: [0, 1], guilds: [guildAt(1), guildAt(8), guildAt(9)], strays: [] });
  });

  it('exit 1 and one line per folder of a server on another shard', async () => {
    dataRoot(path.join(tmp.dir, 'data'), { [guildAt(0)]: 1, [guildAt(3)]: 5, [guildAt(6)]: 1 }, { total: 4, shards: [0, 2] });
    const r = await cli(['shards', 'check', '--data-dir', 'data']);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n').slice(1)).toEqual([
      `server ${guildAt(3)} (5 B) is on shard 3 of 4, which this data root does not run: move its folder to the host that runs shard 3`,
      '',
    ]);
    const json = await cli(['shards', 'check', '--data-dir', 'data', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).strays).toEqual([{ guild: guildAt(3), bytes: 5, shard: 3 }]);
  });

  it('without --data-dir it checks the data root every other command uses: MINUTES_DATA_DIR, else ./channels', async () => {
    const data = dataRoot(path.join(tmp.dir, 'elsewhere'), { [guildAt(1)]: 1 }, { total: 2, shards: [1] });
    const r = await cli(['shards', 'check'], { MINUTES_DATA_DIR: data });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(new RegExp(`^${data} runs shards 1 of 2: 1 server folder of its own`));
    dataRoot(path.join(tmp.dir, 'channels'), { [guildAt(0)]: 1 }, { total: 2, shards: [0] });
    const byDefault = await cli(['shards', 'check']);
    expect(byDefault.code).toBe(0);
    expect(byDefault.stdout.startsWith(`${path.join(tmp.dir, 'channels')} runs shards 0 of 2`)).toBe(true);
  });

  it('a data root with no record says so (exit 1); a broken record or a wrong folder is one line on stderr (exit 2)', async () => {
    const data = dataRoot(path.join(tmp.dir, 'data'), { [guildAt(0)]: 1 });
    const none = await cli(['shards', 'check', '--data-dir', data]);
    expect(none.code).toBe(1);
    expect(none.stdout).toMatch(/records no shard layout yet .*written by `minutes start`/);
    fs.mkdirSync(path.dirname(shardLayoutFile(data)), { recursive: true });
    fs.writeFileSync(shardLayoutFile(data), '{"total": 2}');
    const broken = await cli(['shards', 'check', '--data-dir', data]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(
      /^minutes shards check: in the data root .*: \.minutes\/shards\.json does not have the expected shape \(shards: .*\); fix or remove it\n$/,
    );
    const wrong = await cli(['shards', 'check', '--data-dir', path.join(data, guildAt(0), '900000000000000001')]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^minutes shards check: .* is one channel's folder, not a data root/);
  });
});

describe('minutes shards plan | head', () => {
  it('a reader that stops early (a closed stdout) ends the command quietly, exit 0', async () => {
    // The real command, its stdout a pipe closed after the first chunk, as `| head -c 10` does (over 1 MB of plan: more than a pipe holds).
    const child = spawn(
      process.execPath,
      [path.join(__dirname, '..', '..', 'bin', 'minutes.js'), 'shards', 'plan', '--total', '200000', '--hosts', '4', '--json'],
      {
        cwd: tmp.dir,
        env: { PATH: process.env.PATH, HOME: tmp.dir },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.stdout!.once('data', () => child.stdout!.destroy());
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  }, 20_000);
});
