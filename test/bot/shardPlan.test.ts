import fs from 'node:fs';
import path from 'node:path';
import { checkFolders, planShards, splitShards } from '../../src/bot/shards/shardPlan';
import { shardOf } from '../../src/bot/shards/ownership';
import { serverFolders } from '../../src/memory/serverFolders';
import { makeTmpDir } from '../helpers/tmp';

/** A guild id created at `ms` after Discord's epoch: its shard of n is ms % n. */
const guildAt = (ms: number) => ((BigInt(ms) << 22n) | 0x1234n).toString();

/** A data root with one folder per guild: a channel with a MEMORY.md of `bytes` bytes, a thread log, and a server `.minutes/`. */
function dataRoot(root: string, guilds: Record<string, number>): string {
  for (const [g, bytes] of Object.entries(guilds)) {
    const ch = path.join(root, g, '900000000000000001');
    fs.mkdirSync(path.join(ch, 'threads', '900000000000000002'), { recursive: true });
    fs.mkdirSync(path.join(root, g, '.minutes'), { recursive: true });
    fs.writeFileSync(path.join(ch, 'MEMORY.md'), 'm'.repeat(bytes));
    fs.writeFileSync(path.join(ch, 'threads', '900000000000000002', 'log.jsonl'), '{}\n');
    fs.writeFileSync(path.join(root, g, '.minutes', 'names.json'), '{}');
  }
  // What is not a server: console channels, the workspace, caches, the data root's own state.
  fs.mkdirSync(path.join(root, 'local', 'notes'), { recursive: true });
  fs.mkdirSync(path.join(root, 'workspace'), { recursive: true });
  fs.mkdirSync(path.join(root, '.minutes'), { recursive: true });
  fs.mkdirSync(path.join(root, '.cache', 'vectors'), { recursive: true });
  return root;
}

describe('splitting shards over hosts', () => {
  it('gives each host one contiguous range, sizes differing by one at most', () => {
    expect(splitShards(16, 2)).toEqual([
      [0, 1, 2, 3, 4, 5, 6, 7],
      [8, 9, 10, 11, 12, 13, 14, 15],
    ]);
    expect(splitShards(5, 3)).toEqual([[0], [1, 2], [3, 4]]);
    expect(splitShards(3, 3)).toEqual([[0], [1], [2]]);
    expect(splitShards(1, 1)).toEqual([[0]]);
    for (const [t, h] of [
      [17, 4],
      [100, 7],
    ]) {
      const sizes = splitShards(t, h).map((s) => s.length);
      expect(splitShards(t, h).flat()).toEqual(Array.from({ length: t }, (_, i) => i));
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    }
  });

  it('refuses more hosts than shards', () => {
    expect(() => splitShards(2, 3)).toThrow('cannot split 2 shards over 3 hosts: each host needs at least one shard');
  });
});

describe('planning the folders of a new shard count (real data roots)', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeEach(() => (tmp = makeTmpDir()));
  afterEach(() => tmp.cleanup());

  it('lists the server folders of a data root with their sizes, and nothing else', async () => {
    const root = dataRoot(path.join(tmp.dir, 'a'), { [guildAt(5)]: 100, [guildAt(2)]: 10 });
    // 2 bytes of log + names.json's 2 bytes on top of MEMORY.md.
    expect(await serverFolders(root)).toEqual([
      { guild: guildAt(2), bytes: 10 + 3 + 2 },
      { guild: guildAt(5), bytes: 100 + 3 + 2 },
    ]);
    expect(await serverFolders(path.join(tmp.dir, 'missing'))).toEqual([]);
  });

  it('one host growing to two: the servers of the second half of the shards move, with their sizes', async () => {
    // Today: one host, one data root, every server. Tomorrow: 4 shards, hosts 0 (0-1) and 1 (2-3).
    const guilds = { [guildAt(0)]: 50, [guildAt(1)]: 60, [guildAt(2)]: 70, [guildAt(3)]: 80, [guildAt(7)]: 90 };
    const root = dataRoot(path.join(tmp.dir, 'host0'), guilds);
    const plan = planShards({ total: 4, hosts: 2, today: [{ folders: await serverFolders(root), layout: { total: 1, shards: [0] } }] });
    expect(plan).toEqual({
      total: 4,
      hosts: [
        { host: 0, shards: [0, 1], guilds: [guildAt(0), guildAt(1)] },
        { host: 1, shards: [2, 3], guilds: [guildAt(2), guildAt(3), guildAt(7)] },
      ],
      moves: [
        { guild: guildAt(2), from: 0, to: 1, bytes: 75 },
        { guild: guildAt(3), from: 0, to: 1, bytes: 85 },
        { guild: guildAt(7), from: 0, to: 1, bytes: 95 },
      ],
    });
    // Every server lands on the host whose shards Discord sends it to.
    for (const h of plan.hosts) for (const g of h.guilds) expect(h.shards).toContain(shardOf(g, 4));
  });

  it('two hosts shrinking to one: the second data root gives up all its folders', async () => {
    const a = dataRoot(path.join(tmp.dir, 'a'), { [guildAt(0)]: 1, [guildAt(2)]: 1 });
    const b = dataRoot(path.join(tmp.dir, 'b'), { [guildAt(1)]: 1, [guildAt(3)]: 4 });
    const plan = planShards({
      total: 3,
      hosts: 1,
      today: [
        { folders: await serverFolders(a), layout: { total: 2, shards: [0] } },
        { folders: await serverFolders(b), layout: { total: 2, shards: [1] } },
      ],
    });
    expect(plan.hosts).toEqual([{ host: 0, shards: [0, 1, 2], guilds: [guildAt(0), guildAt(1), guildAt(2), guildAt(3)] }]);
    expect(plan.moves).toEqual([
      { guild: guildAt(1), from: 1, to: 0, bytes: 6 },
      { guild: guildAt(3), from: 1, to: 0, bytes: 9 },
    ]);
  });

  it('the live copy is the one whose data root runs the server today: a leftover copy on the new host does not count', async () => {
    // guildAt(1) moved from a to b earlier (shard 1 of 2 is b's) and a kept a stale copy. Going to one
    // host (a), the live copy in b must come back over the stale one.
    const a = dataRoot(path.join(tmp.dir, 'a'), { [guildAt(0)]: 1, [guildAt(1)]: 1 });
    const b = dataRoot(path.join(tmp.dir, 'b'), { [guildAt(1)]: 40 });
    const today = [
      { folders: await serverFolders(a), layout: { total: 2, shards: [0] } },
      { folders: await serverFolders(b), layout: { total: 2, shards: [1] } },
    ];
    expect(planShards({ total: 2, hosts: 1, today }).moves).toEqual([{ guild: guildAt(1), from: 1, to: 0, bytes: 45 }]);
    // Without recorded layouts, any copy counts: the one already on the target stays.
    expect(planShards({ total: 2, hosts: 1, today: today.map((t) => ({ folders: t.folders })) }).moves).toEqual([]);
  });

  it('checks a data root against its layout: the folders of servers on other shards are strays', async () => {
    const root = dataRoot(path.join(tmp.dir, 'a'), { [guildAt(4)]: 1, [guildAt(5)]: 2, [guildAt(9)]: 3 });
    const folders = await serverFolders(root);
    expect(checkFolders({ total: 4, shards: [0, 1] }, folders)).toEqual({
      own: [folders[0], folders[1], folders[2]],
      strays: [],
    });
    expect(checkFolders({ total: 4, shards: [0] }, folders)).toEqual({
      own: [folders[0]],
      strays: [
        { guild: guildAt(5), bytes: 7, shard: 1 },
        { guild: guildAt(9), bytes: 8, shard: 1 },
      ],
    });
  });
});
