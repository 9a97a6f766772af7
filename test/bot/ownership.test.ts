import { createDiscordClient } from '../../src/bot/discord/client';
import { ownsGuild, ownsRef, shardsOf } from '../../src/bot/shards/ownership';
import { runCli } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';

/** A guild id created at `ms` after Discord's epoch (its shard depends on that alone) with low bits set. */
const guildAt = (ms: number) => ((BigInt(ms) << 22n) | 0x3abcdn).toString();

describe('which guilds a shard process owns', () => {
  it("follows Discord's (guild_id >> 22) % shard_count, whatever the id's low bits", () => {
    // 41771983423143937 >> 22 = 9959216934: shard 0 of 2, shard 4 of 5.
    expect(ownsGuild('41771983423143937', [0], 2)).toBe(true);
    expect(ownsGuild('41771983423143937', [1], 2)).toBe(false);
    expect([0, 1, 2, 3, 4].map((s) => ownsGuild('41771983423143937', [s], 5))).toEqual([false, false, false, false, true]);
    expect([0, 1, 2].map((s) => ownsGuild(guildAt(1_000_003), [s], 3))).toEqual([false, true, false]);
    expect(ownsGuild(guildAt(7), [0, 1], 2)).toBe(true);
  });

  it('one shard in all owns every guild and the local (console) folders; a sharded process owns no local folder', () => {
    expect(ownsGuild(guildAt(7), [0], 1)).toBe(true);
    expect(ownsRef({ kind: 'local', name: 'notes' }, { ids: [0], count: 1 })).toBe(true);
    expect(ownsRef({ kind: 'local', name: 'notes' }, { ids: [0], count: 2 })).toBe(false);
    expect(ownsRef({ kind: 'discord', guildId: guildAt(8), channelId: '1' }, { ids: [0], count: 2 })).toBe(true);
    expect(ownsRef({ kind: 'discord', guildId: guildAt(9), channelId: '1', threadId: '2' }, { ids: [0], count: 2 })).toBe(false);
  });

  it("comes from the client's options: the sharding manager's SHARDS/SHARD_COUNT reach our client unchanged", () => {
    expect(shardsOf(createDiscordClient({ apiUrl: 'http://127.0.0.1:1' }))).toEqual({ ids: [0], count: 1 });
    expect(shardsOf(createDiscordClient({ apiUrl: 'http://127.0.0.1:1', shards: { ids: [1], count: 2 } }))).toEqual({ ids: [1], count: 2 });
    const saved = { SHARDS: process.env.SHARDS, SHARD_COUNT: process.env.SHARD_COUNT };
    try {
      Object.assign(process.env, { SHARDS: '3', SHARD_COUNT: '4' });
      expect(shardsOf(createDiscordClient({ apiUrl: 'http://127.0.0.1:1' }))).toEqual({ ids: [3], count: 4 });
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });
});

describe('minutes start --shards', () => {
  it.each(['0', '-1', '1.5', 'two', ''])('refuses %p with one line and exit code 2', async (value) => {
    const tmp = makeTmpDir();
    try {
      const r = await runCli(['start', '--shards', value], { env: { DISCORD_TOKEN: 't', ANTHROPIC_API_KEY: 'k' }, cwd: tmp.dir });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/--shards .*expected a positive whole number or 'auto'/);
    } finally {
      tmp.cleanup();
    }
  });
});
