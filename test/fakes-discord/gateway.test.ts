/**
 * Gateway behaviour of the fake: resume after a drop without loss or duplicates, heartbeats,
 * bad tokens, privileged intents, the MessageContent intent, guilds joined after login.
 */
import { ApplicationFlags, type Client, DiscordjsErrorCodes, GatewayIntentBits, type Message, REST, Routes, type TextChannel } from 'discord.js';
import * as http from 'node:http';
import { WebSocket } from 'ws';
import { FakeDiscord } from '../fakes/discord/fakeDiscord';
import { BOT_INTENTS, clientFor, collect, loggedIn, nextEvent, sleep } from './helpers';

const started: FakeDiscord[] = [];
const clients: Client[] = [];

async function fake(opts: Parameters<typeof FakeDiscord.start>[0] = {}): Promise<FakeDiscord> {
  const d = await FakeDiscord.start(opts);
  started.push(d);
  return d;
}

function track(c: Client): Client {
  clients.push(c);
  return c;
}

afterEach(async () => {
  for (const c of clients.splice(0)) await c.destroy();
  for (const d of started.splice(0)) {
    expect(d.problems).toEqual([]);
    await d.stop();
  }
});

test('a 4000 disconnect resumes; a message sent while disconnected arrives exactly once', async () => {
  const d = await fake();
  const { channel, user } = d.setupBasic();
  const client = track(await loggedIn(d));
  const seen = collect(client, 'messageCreate');

  d.userSays(channel.id, user.id, 'before');
  await d.waitFor(() => seen.length === 1);

  const resumed = new Promise<void>((resolve) => client.ws.shards.first()!.once('resumed', () => resolve()));
  await d.disconnect(4000);
  d.userSays(channel.id, user.id, 'while down');
  await resumed;
  d.userSays(channel.id, user.id, 'after');
  await d.waitFor(() => seen.length >= 3);
  await sleep(100);

  expect(seen.map(([m]) => m.content)).toEqual(['before', 'while down', 'after']);
  expect(d.identifyCount).toBe(1);
  expect(d.resumeCount).toBe(1);
  expect(d.connectedSessions).toBe(1);
});

test('heartbeats are acknowledged (short interval)', async () => {
  const d = await fake({ heartbeatIntervalMs: 150 });
  d.setupBasic();
  const client = track(await loggedIn(d));
  // discord.js records the latency only when an ACK comes back.
  await d.waitFor(() => client.ws.ping >= 0, 3000, 'a heartbeat ACK');
  expect(client.ws.status).toBe(0);
});

test('an invalid token: REST answers 401 and login fails with TokenInvalid', async () => {
  const d = await fake();
  d.setupBasic();
  const client = track(clientFor(d));
  await expect(client.login('wrong-token')).rejects.toMatchObject({ code: DiscordjsErrorCodes.TokenInvalid });
  expect(d.requests[0]).toMatchObject({ route: 'GET /gateway/bot', status: 401 });
});

test('a privileged intent not enabled in the portal closes the gateway with 4014', async () => {
  const d = await fake({ privilegedIntents: { messageContent: false } });
  d.setupBasic();
  const client = track(clientFor(d));
  const disconnected = nextEvent(client, 'shardDisconnect');
  // discord.js rejects login() with "Used disallowed intents" (what the bot turns into its one-line hint).
  await expect(client.login(d.botToken)).rejects.toThrow(/disallowed intents/i);
  const [event] = await disconnected;
  expect(event.code).toBe(4014);
  // The portal switch is visible to a doctor through the application's flags.
  const rest = new REST({ api: d.apiUrl }).setToken(d.botToken);
  const app = (await rest.get(Routes.currentApplication())) as { flags: number };
  expect(app.flags & ApplicationFlags.GatewayMessageContent).toBe(0);
  expect(app.flags & ApplicationFlags.GatewayGuildMembers).not.toBe(0);
});

test('without the MessageContent intent, content is blank unless the bot is mentioned', async () => {
  const d = await fake();
  const { channel, user } = d.setupBasic();
  const client = track(await loggedIn(d, { intents: BOT_INTENTS.filter((i) => i !== GatewayIntentBits.MessageContent) }));
  const seen = collect(client, 'messageCreate');
  d.userSays(channel.id, user.id, 'private words');
  d.userSays(channel.id, user.id, 'hey bot', { mentionsBot: true });
  await d.waitFor(() => seen.length === 2);
  expect(seen.map(([m]: [Message]) => m.content)).toEqual(['', `<@${d.bot.id}> hey bot`]);
});

test('a guild created after login arrives as guildCreate, its channels as channelCreate', async () => {
  const d = await fake();
  d.setupBasic();
  const client = track(await loggedIn(d));
  const joined = nextEvent(client, 'guildCreate');
  const g = d.createGuild({ name: 'Second' });
  const [guild] = await joined;
  expect(guild.id).toBe(g.id);
  const created = nextEvent(client, 'channelCreate');
  const ch = d.createTextChannel(g.id, { name: 'late' });
  const [c] = await created;
  expect(c.id).toBe(ch.id);
});

test('a client that dies abruptly (killed process) leaves the fake healthy for the next one', async () => {
  const d = await fake();
  const { channel, user } = d.setupBasic();
  // A gateway socket that identifies and then vanishes without a close frame.
  const raw = new WebSocket(d.gatewayUrl);
  await new Promise((resolve) => raw.once('message', resolve));
  raw.send(JSON.stringify({ op: 2, d: { token: d.botToken, intents: 513, properties: {} } }));
  await new Promise((resolve) => raw.once('message', resolve));
  raw.terminate();
  // A REST request cut off mid-body.
  await new Promise<void>((resolve) => {
    const req = http.request(`${d.apiUrl}/v10/channels/${channel.id}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${d.botToken}`, 'content-type': 'application/json', 'content-length': '100' },
    });
    req.on('error', () => resolve());
    req.write('{"content":');
    setTimeout(() => req.destroy(), 50);
  });
  await d.waitFor(() => d.requests.some((r) => r.status === 499));

  const client = track(await loggedIn(d));
  const arrived = nextEvent(client, 'messageCreate');
  d.userSays(channel.id, user.id, 'still works');
  const [m] = await arrived;
  expect(m.content).toBe('still works');
  expect(d.identifyCount).toBe(2);
});

test('a restarted bot (new client) identifies again and gets the current state', async () => {
  const d = await fake();
  const { channel, user } = d.setupBasic();
  const first = await loggedIn(d);
  await first.destroy();
  d.userSays(channel.id, user.id, 'while the bot was off');
  const second = track(await loggedIn(d));
  expect(d.identifyCount).toBe(2);
  const history = await (second.channels.cache.get(channel.id) as TextChannel).messages.fetch();
  expect(history.map((m) => m.content)).toEqual(['while the bot was off']);
});
