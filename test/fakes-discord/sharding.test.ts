/**
 * Sharding in the fake, like Discord: IDENTIFY's `shard: [id, count]` decides which guilds a
 * session is told about and which guild events it receives.
 */
import type { Client, Message } from 'discord.js';
import { WebSocket } from 'ws';
import { FakeDiscord } from '../fakes/discord/fakeDiscord';
import { sessionGetsEvent } from '../fakes/discord/gateway';
import { shardOf, SnowflakeGenerator } from '../fakes/discord/snowflake';
import { collect, loggedIn, sleep } from './helpers';

let d: FakeDiscord;
const clients: Client[] = [];

beforeEach(async () => {
  d = await FakeDiscord.start();
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.destroy();
  expect(d.problems).toEqual([]);
  await d.stop();
});

async function shardClient(id: number, count: number): Promise<Client> {
  const c = await loggedIn(d, { shards: [id], shardCount: count });
  clients.push(c);
  return c;
}

/** READY (and the GUILD_CREATEs after it) as a raw socket sees them after identifying with `shard`. */
async function rawIdentify(shard: unknown): Promise<{ frames: Array<{ t: string; d: Record<string, unknown> }>; close: number | null }> {
  const ws = new WebSocket(d.gatewayUrl);
  const frames: Array<{ t: string; d: Record<string, unknown> }> = [];
  let close: number | null = null;
  ws.on('message', (raw) => {
    const f = JSON.parse(raw.toString());
    if (f.op === 0) frames.push(f);
  });
  ws.on('close', (code) => {
    close = code;
  });
  await new Promise((resolve) => ws.once('message', resolve));
  ws.send(JSON.stringify({ op: 2, d: { token: d.botToken, intents: 513, properties: {}, ...(shard === undefined ? {} : { shard }) } }));
  await sleep(150);
  ws.terminate();
  return { frames, close };
}

test('guild ids can be made to land on a chosen shard, and stay time-ordered', () => {
  const ids = new SnowflakeGenerator();
  const made = [ids.nextOnShard(1, 2), ids.nextOnShard(0, 2), ids.nextOnShard(2, 3), ids.next()];
  expect(made.slice(0, 3).map((id, i) => shardOf(id, [2, 2, 3][i]))).toEqual([1, 0, 2]);
  expect(made.map(BigInt)).toEqual([...made.map(BigInt)].sort((a, b) => (a < b ? -1 : 1)));
  expect(() => ids.nextOnShard(2, 2)).toThrow(/no shard 2 of 2/);
});

test("READY and GUILD_CREATE list only the shard's guilds; READY echoes the shard; no shard field = every guild", async () => {
  const a = d.createGuild({ name: 'A', onShard: [0, 2] });
  const b = d.createGuild({ name: 'B', onShard: [1, 2] });
  const guildsOf = (r: Awaited<ReturnType<typeof rawIdentify>>) => ({
    ready: (r.frames[0].d.guilds as Array<{ id: string }>).map((g) => g.id).sort(),
    created: r.frames
      .filter((f) => f.t === 'GUILD_CREATE')
      .map((f) => f.d.id)
      .sort(),
    shard: r.frames[0].d.shard,
  });
  expect(guildsOf(await rawIdentify([0, 2]))).toEqual({ ready: [a.id], created: [a.id], shard: [0, 2] });
  expect(guildsOf(await rawIdentify([1, 2]))).toEqual({ ready: [b.id], created: [b.id], shard: [1, 2] });
  expect(guildsOf(await rawIdentify(undefined))).toEqual({ ready: [a.id, b.id].sort(), created: [a.id, b.id].sort(), shard: [0, 1] });
});

test('an impossible shard is refused with 4010', async () => {
  for (const shard of [[2, 2], [0, 0], [-1, 2], 'x']) {
    const r = await rawIdentify(shard);
    expect({ shard, close: r.close, frames: r.frames.length }).toEqual({ shard, close: 4010, frames: 0 });
  }
});

test('two discord.js clients (shards 0 and 1 of 2) each get only their own guild and its messages and later guilds', async () => {
  const a = d.setupBasic({ guildName: 'A', onShard: [0, 2] });
  const b = d.setupBasic({ guildName: 'B', onShard: [1, 2], username: 'bob' });
  const [c0, c1] = [await shardClient(0, 2), await shardClient(1, 2)];
  expect([[...c0.guilds.cache.keys()], [...c1.guilds.cache.keys()]]).toEqual([[a.guild.id], [b.guild.id]]);

  const seen0 = collect(c0, 'messageCreate');
  const seen1 = collect(c1, 'messageCreate');
  const joined0 = collect(c0, 'guildCreate');
  const joined1 = collect(c1, 'guildCreate');
  d.userSays(a.channel.id, a.user.id, 'in A');
  d.userSays(b.channel.id, b.user.id, 'in B');
  const later = d.createGuild({ name: 'C', onShard: [1, 2] });
  await d.waitFor(() => seen0.length >= 1 && seen1.length >= 1 && joined1.length >= 1);
  await sleep(100);
  const text = (seen: Array<[Message]>) => seen.map(([m]) => m.content);
  expect([text(seen0), text(seen1)]).toEqual([['in A'], ['in B']]);
  expect([joined0.length, joined1.map(([g]) => g.id)]).toEqual([0, [later.id]]);
});

test('events with no guild go to shard 0 only; guild events by guild_id, or by id for GUILD_*', () => {
  const ids = new SnowflakeGenerator();
  const g1 = ids.nextOnShard(1, 2);
  const to = (event: string, payload: Record<string, unknown>) => [0, 1].filter((s) => sessionGetsEvent([s, 2], event, payload));
  expect(to('MESSAGE_CREATE', { id: ids.next(), channel_id: '1' })).toEqual([0]);
  expect(to('INTERACTION_CREATE', { id: ids.next() })).toEqual([0]);
  expect(to('MESSAGE_CREATE', { id: ids.nextOnShard(0, 2), guild_id: g1 })).toEqual([1]);
  expect(to('GUILD_DELETE', { id: g1 })).toEqual([1]);
  expect(to('GUILD_ROLE_CREATE', { guild_id: g1, role: { id: ids.nextOnShard(0, 2) } })).toEqual([1]);
  expect(sessionGetsEvent([0, 1], 'MESSAGE_CREATE', { guild_id: g1 })).toBe(true);
});
