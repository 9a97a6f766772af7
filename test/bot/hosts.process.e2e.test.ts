/**
 * Two hosts of one bot, as operators run them: two `minutes start --shards i --total-shards 2`
 * (the real bin/minutes.js, each forking its shard process), each with its own data root, sharing
 * one Redis, against one fake Discord with a server on each shard. Needs dist/ current, like the
 * other process tests (`npm test` builds first).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { shardLayoutFile } from '../../src/memory/layout';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { BotHarness, processEnv, startHarness } from '../helpers/botHarness';
import { runCli } from '../helpers/cli';
import { redisSuite, startRedisServer, type RedisServer } from '../helpers/redis';

const BIN = path.join(__dirname, '../../bin/minutes.js');
const runs = redisSuite('several-hosts tests');

type Place = { guild: FakeGuild; channel: FakeChannel; user: FakeUser };
type Host = { child: ChildProcess; exited: Promise<number | null>; logs: () => Record<string, unknown>[]; stderr: () => string };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The server folders (snowflake names) of a data root. */
const serverFolders = (root: string) => (fs.existsSync(root) ? fs.readdirSync(root).filter((n) => /^\d+$/.test(n)) : []);

(runs ? describe : describe.skip)('two hosts, one shard each, one Redis', () => {
  let h: BotHarness;
  let redis: RedisServer;
  let a: Place;
  let b: Place;
  let roots: string[];
  let config: string;
  const hosts: Host[] = [];
  const pids: number[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  afterEach(async () => {
    // A failed run must not leave a manager or a shard process behind.
    for (const pid of pids.splice(0).filter(alive)) process.kill(pid, 'SIGKILL');
    for (const host of hosts.splice(0)) if (host.child.exitCode === null && host.child.signalCode === null) host.child.kill('SIGKILL');
    await h.close();
  });

  /** `minutes start` with `args` on data root `root`, in its own process group, logging JSON to a captured stderr. */
  function startHost(args: string[], root: string): Host {
    const child = spawn(process.execPath, [BIN, 'start', ...args], {
      cwd: path.dirname(root),
      env: {
        ...processEnv(h, { dataDir: root }),
        MINUTES_CONFIG: config,
        REDIS_URL: redis.url,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.resume();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const logs = () =>
      err
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const host = { child, exited, logs, stderr: () => err };
    hosts.push(host);
    return host;
  }

  async function ready(host: Host): Promise<void> {
    await h.discord.waitFor(() => (host.logs().some((l) => l.msg === 'all shards ready') ? true : undefined), 30_000, 'all shards ready');
    for (const l of host.logs()) if (l.msg === 'shard process started') pids.push(l.pid as number);
  }

  it('each host answers only its server into its own data root; identifies are spaced and the model limit is shared through Redis', async () => {
    h = await startHarness({
      launch: false,
      setup: (d) => {
        a = d.setupBasic({ guildName: 'A', onShard: [0, 2] });
        b = d.setupBasic({ guildName: 'B', onShard: [1, 2], username: 'bob' });
      },
    });
    const base = path.dirname(h.dataDir);
    roots = [path.join(base, 'host0', 'channels'), path.join(base, 'host1', 'channels')];
    for (const r of roots) fs.mkdirSync(path.dirname(r));
    // One request in flight at a time for the whole bot, whichever host asks.
    config = path.join(base, 'minutes.config.json');
    fs.writeFileSync(config, JSON.stringify({ limits: { concurrency: 1, requestsPerMinute: 0, maxRetries: 0 }, discord: { offerCondense: false } }));
    h.model.setHandler(async (req) => {
      await new Promise((r) => setTimeout(r, 400));
      return `answer to: ${/question \d in guild \w/.exec(req.lastUserText)?.[0] ?? 'upkeep'}`;
    });

    // Both hosts start at once: without shared turns both would identify in the same instant.
    const host0 = startHost(['--shards', '0', '--total-shards', '2'], roots[0]);
    const host1 = startHost(['--shards', '1', '--total-shards', '2'], roots[1]);
    await Promise.all([ready(host0), ready(host1)]);
    const identifies = h.discord.identifies;
    expect(identifies.map((i) => i.shard).sort()).toEqual([
      [0, 2],
      [1, 2],
    ]);
    // max_concurrency 1: one bucket, one identify per 5 s for the whole bot.
    expect(Math.abs(identifies[1].at - identifies[0].at)).toBeGreaterThanOrEqual(5_000);
    expect([...host0.logs(), ...host1.logs()].filter((l) => /turn to identify/.test(String(l.msg)))).toHaveLength(1);

    // One question on each host at the same moment: without the shared limit both would be in flight at once.
    const asked = [
      h.discord.userSays(a.channel.id, a.user.id, 'question 1 in guild A', { mentionsBot: true }),
      h.discord.userSays(b.channel.id, b.user.id, 'question 1 in guild B', { mentionsBot: true }),
    ];
    for (const [i, q] of asked.entries()) {
      const reply = await h.discord.waitForBotMessage(q.channelId, { after: q.id, timeoutMs: 20_000 });
      expect(reply.content).toBe(`answer to: question 1 in guild ${'AB'[i]}`);
    }
    expect(h.model.requests.length).toBeGreaterThanOrEqual(2);
    expect(h.model.maxInFlight()).toBe(1);
    expect([h.discord.botMessagesIn(a.channel.id).length, h.discord.botMessagesIn(b.channel.id).length]).toEqual([1, 1]);

    for (const host of [host0, host1]) host.child.kill('SIGTERM');
    expect(await Promise.all([host0.exited, host1.exited])).toEqual([0, 0]);
    expect(pids.filter(alive)).toEqual([]);

    // Each data root holds its own server's folder and nothing of the other's, and records its layout.
    expect(serverFolders(roots[0])).toEqual([a.guild.id]);
    expect(serverFolders(roots[1])).toEqual([b.guild.id]);
    expect(fs.readFileSync(path.join(roots[0], a.guild.id, a.channel.id, 'log.jsonl'), 'utf8')).toContain('question 1 in guild A');
    expect(fs.readFileSync(path.join(roots[1], b.guild.id, b.channel.id, 'log.jsonl'), 'utf8')).toContain('question 1 in guild B');
    expect(roots.map((r) => JSON.parse(fs.readFileSync(shardLayoutFile(r), 'utf8')))).toEqual([
      { total: 2, shards: [0] },
      { total: 2, shards: [1] },
    ]);
    const logged = [host0, host1].map((host) => host.logs().find((l) => l.msg === 'logged in to Discord'));
    expect(logged.map((l) => [l?.shards, l?.guilds])).toEqual([
      [[0], 1],
      [[1], 1],
    ]);

    // The data roots check out, and going back to one host moves B's folder from host 1 to host 0.
    const check = await Promise.all(roots.map((r) => runCli(['shards', 'check', '--data-dir', r], { env: {}, cwd: base })));
    expect(check.map((c) => c.code)).toEqual([0, 0]);
    const plan = await runCli(['shards', 'plan', '--total', '1', '--hosts', '1', '--data-dir', ...roots, '--json'], { env: {}, cwd: base });
    const moves = (JSON.parse(plan.stdout) as { moves: { guild: string; from: number; to: number; bytes: number }[] }).moves;
    expect(moves.map((m) => [m.guild, m.from, m.to])).toEqual([[b.guild.id, 1, 0]]);
    expect(moves[0].bytes).toBeGreaterThan(0);

    // Host 0 started with another total refuses in one line, before any shard or Discord is touched.
    const identified = h.discord.identifyCount;
    const again = startHost(['--shards', '0-1', '--total-shards', '4'], roots[0]);
    expect(await again.exited).toBe(2);
    expect(again.stderr().trim().split('\n')).toHaveLength(1);
    expect(again.stderr()).toMatch(/^minutes: this data root was last started with shards 0 of 2 .*`minutes shards plan --total 4 --hosts N/);
    expect(h.discord.identifyCount).toBe(identified);
    expect(h.discord.problems).toEqual([]);
  }, 90_000);
});
