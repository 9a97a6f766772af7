/**
 * `minutes start --shards 2` as a person runs it: the real bin/minutes.js, whose ShardingManager
 * forks bin/minutes.js once per shard. The shard processes are compiled code, not ts-jest's, so
 * this needs dist/ to be current: that is why `npm test` builds before jest.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { FakeChannel, FakeUser } from '../fakes/discord/state';
import { BotHarness, processEnv, startHarness } from '../helpers/botHarness';

const BIN = path.join(__dirname, '../../bin/minutes.js');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('minutes start --shards 2 (child processes)', () => {
  let h: BotHarness;
  let child: ChildProcess | undefined;
  let pids: number[] = [];
  let a: { channel: FakeChannel; user: FakeUser };
  let b: { channel: FakeChannel; user: FakeUser };
  afterEach(async () => {
    // A failed run must not leave the shard processes behind.
    for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await h.close();
  });

  /** `minutes start --shards n` in its own process group, logging JSON to a captured stderr. */
  function startSharded(n: number, o: { token?: string } = {}) {
    child = spawn(process.execPath, [BIN, 'start', '--shards', String(n)], {
      cwd: path.dirname(h.dataDir),
      env: {
        ...processEnv(h, { token: o.token }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
    });
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    const logs = () =>
      err
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    return { exited, logs, stderr: () => err };
  }

  /** Guild A on shard 0 of 2, guild B on shard 1, and the fakes; the bot is started by the test. */
  function twoGuildsOnTwoShards(): Promise<BotHarness> {
    return startHarness({
      launch: false,
      setup: (d) => {
        a = d.setupBasic({ guildName: 'A', onShard: [0, 2] });
        b = d.setupBasic({ guildName: 'B', onShard: [1, 2], username: 'bob' });
      },
    });
  }

  async function allReady(logs: () => Record<string, unknown>[]): Promise<void> {
    await h.discord.waitFor(() => (logs().some((l) => l.msg === 'all shards ready') ? true : undefined), 20_000, 'all shards ready');
    pids = logs()
      .filter((l) => l.msg === 'shard process started')
      .map((l) => l.pid as number);
  }

  it('serves each guild from its own shard process; SIGTERM stops them all cleanly with exit code 0', async () => {
    h = await twoGuildsOnTwoShards();
    h.model.setHandler((req) => `answer to: ${/question in guild \w/.exec(req.lastUserText)?.[0]}`);
    const { exited, logs } = startSharded(2);
    await allReady(logs);

    const qa = h.discord.userSays(a.channel.id, a.user.id, 'question in guild A', { mentionsBot: true });
    const qb = h.discord.userSays(b.channel.id, b.user.id, 'question in guild B', { mentionsBot: true });
    expect((await h.discord.waitForBotMessage(a.channel.id, { after: qa.id })).content).toBe('answer to: question in guild A');
    expect((await h.discord.waitForBotMessage(b.channel.id, { after: qb.id })).content).toBe('answer to: question in guild B');
    expect(h.discord.identifiedShards.sort()).toEqual([
      [0, 2],
      [1, 2],
    ]);
    const loggedIn = logs()
      .filter((l) => l.msg === 'logged in to Discord')
      .map((l) => [l.shards, l.guilds])
      .sort();
    expect(loggedIn).toEqual([
      [[0], 1],
      [[1], 1],
    ]);
    expect(logs().filter((l) => /set REDIS_URL to share them/.test(String(l.msg)))).toHaveLength(1);

    expect(pids).toHaveLength(2);
    child!.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(logs().filter((l) => l.msg === 'stopped cleanly')).toHaveLength(2);
    expect(pids.filter(alive)).toEqual([]);
    expect(h.discord.connectedSessions).toBe(0);
    expect(h.discord.problems).toEqual([]);
  });

  it('a SIGTERM to the whole process group (as a service manager sends) lets a shard finish the reply in flight', async () => {
    h = await startHarness({
      launch: false,
      setup: (d) => {
        a = d.setupBasic();
      },
    });
    h.model.setHandler(async () => {
      await new Promise((r) => setTimeout(r, 1000));
      return 'finished while stopping';
    });
    const { exited, logs } = startSharded(1);
    await allReady(logs);
    const q = h.discord.userSays(a.channel.id, a.user.id, 'a slow question', { mentionsBot: true });
    await h.discord.waitFor(() => (h.model.requests.length > 0 ? true : undefined), 5000, 'the model call');
    // The shard gets SIGTERM twice, from the group and then from the manager, while it drains.
    process.kill(-child!.pid!, 'SIGTERM');
    expect(await exited).toBe(0);
    expect((await h.discord.waitForBotMessage(a.channel.id, { after: q.id })).content).toBe('finished while stopping');
    expect(logs().filter((l) => l.msg === 'stopped cleanly')).toHaveLength(1);
    expect(logs().find((l) => l.msg === 'shards stopped')?.exitCodes).toEqual([0]);
    expect(logs().filter((l) => /REDIS_URL/.test(String(l.msg)))).toEqual([]);
    expect(pids.filter(alive)).toEqual([]);
  });

  it('a shard that cannot start (a wrong token) ends the command with exit code 1, without respawning it', async () => {
    h = await startHarness({
      launch: false,
      setup: (d) => {
        a = d.setupBasic();
      },
    });
    const { exited, logs, stderr } = startSharded(1, { token: 'MTIz.wrong.token-that-is-long-enough' });
    expect(await exited).toBe(1);
    expect(stderr().match(/Discord rejected DISCORD_TOKEN/g)).toHaveLength(1);
    expect(logs().filter((l) => l.msg === 'shard process started')).toHaveLength(1);
    expect(logs().some((l) => /shard 0 (did not start|exited during start-up)/.test(String(l.msg)))).toBe(true);
  });

  it('a shard dying while the next one waits to start fails the command (exit 1), not a silent exit 0', async () => {
    h = await twoGuildsOnTwoShards();
    const { exited, logs } = startSharded(2);
    await h.discord.waitFor(() => (logs().some((l) => l.msg === 'shard ready') ? true : undefined), 20_000, 'shard 0 ready');
    const pid0 = logs().find((l) => l.msg === 'shard process started')!.pid as number;
    pids = [pid0];
    process.kill(pid0, 'SIGKILL');
    expect(await exited).toBe(1);
    expect(logs().some((l) => /shard 0 exited during start-up/.test(String(l.msg)))).toBe(true);
    expect(logs().filter((l) => l.msg === 'shard process started')).toHaveLength(1);
  });

  it('a manager killed outright (SIGKILL) leaves no shard behind: each winds down on its own', async () => {
    h = await startHarness({
      launch: false,
      setup: (d) => {
        a = d.setupBasic();
      },
    });
    const { exited, logs } = startSharded(1);
    await allReady(logs);
    child!.kill('SIGKILL');
    await exited;
    await h.discord.waitFor(() => (pids.every((pid) => !alive(pid)) ? true : undefined), 10_000, 'the orphaned shard to exit');
    expect(h.discord.connectedSessions).toBe(0);
  });
});
