/**
 * The fake Discord against the real discord.js Client: login, messages, replies, typing,
 * history, permissions, rate limits. These are the behaviours the chat-path tests rely on.
 */
import { AttachmentBuilder, type Client, DiscordAPIError, type Message, RESTEvents, type TextChannel } from 'discord.js';
import { FakeDiscord } from '../fakes/discord/fakeDiscord';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { loggedIn, nextEvent } from './helpers';

let d: FakeDiscord;
let client: Client;
let guild: FakeGuild;
let alice: FakeUser;
let readyMs: number;

beforeAll(async () => {
  d = await FakeDiscord.start();
  ({ guild, user: alice } = d.setupBasic());
  const started = Date.now();
  client = await loggedIn(d, { rest: { retries: 0 } });
  readyMs = Date.now() - started;
});

afterAll(async () => {
  await client.destroy();
  await d.stop();
});

afterEach(() => {
  client.removeAllListeners('messageCreate');
  expect(d.problems).toEqual([]);
});

function freshChannel(name: string): FakeChannel {
  return d.createTextChannel(guild.id, { name });
}

async function textChannel(id: string): Promise<TextChannel> {
  return (await client.channels.fetch(id)) as TextChannel;
}

test('login reaches clientReady quickly, with the guild and its channels cached', () => {
  // READY lists exactly the guilds sent as GUILD_CREATE, so no 15 s waitGuildTimeout.
  expect(readyMs).toBeLessThan(2000);
  expect(d.identifyCount).toBe(1);
  const cached = client.guilds.cache.get(guild.id);
  expect(cached?.channels.cache.find((c) => c.name === 'general')).toBeDefined();
  expect(cached?.members.me?.permissions.has('SendMessages')).toBe(true);
  expect(client.user?.id).toBe(d.bot.id);
  expect(d.requests.map((r) => r.route)).toContain('GET /gateway/bot');
});

test('messageCreate arrives with content, member and the bot mention', async () => {
  const ch = freshChannel('mc');
  const arrived = nextEvent(client, 'messageCreate', (m) => m.channelId === ch.id);
  d.userSays(ch.id, alice.id, 'what did we decide?', { mentionsBot: true });
  const [m] = await arrived;
  expect(m.content).toBe(`<@${d.bot.id}> what did we decide?`);
  expect(m.author.id).toBe(alice.id);
  expect(m.member?.id).toBe(alice.id);
  expect(m.mentions.has(client.user!)).toBe(true);
  expect(m.guildId).toBe(guild.id);
});

test('message.reply records allowed_mentions, and the fake reports who would be pinged', async () => {
  const ch = freshChannel('reply');
  client.on('messageCreate', async (m: Message) => {
    if (m.author.bot || m.channelId !== ch.id) return;
    await m.reply({ content: 'noted @everyone <@' + alice.id + '>', allowedMentions: { parse: [], repliedUser: false } });
  });
  const said = d.userSays(ch.id, alice.id, 'remember this', { mentionsBot: true });
  const reply = await d.waitForBotMessage(ch.id, { after: said.id });
  expect(reply.reference?.messageId).toBe(said.id);
  expect(reply.type).toBe(19);
  expect(reply.allowedMentions).toEqual({ parse: [], replied_user: false });
  expect(d.pingsNobody(reply)).toBe(true);
  const request = d.requestsTo('POST /channels/:channelId/messages').at(-1)!;
  expect(request.authorization).toBe(`Bot ${d.botToken}`);
  expect(request.body).toMatchObject({ message_reference: { message_id: said.id } });
});

test('a reply without allowedMentions does ping (so "pings nobody" assertions can fail)', async () => {
  const ch = freshChannel('ping');
  const said = d.userSays(ch.id, alice.id, 'hi', { mentionsBot: true });
  const channel = await textChannel(ch.id);
  const msg = await channel.messages.fetch(said.id);
  await msg.reply('@everyone look');
  const reply = d.botMessagesIn(ch.id).at(-1)!;
  // Default @everyone permissions include MentionEveryone, as on a new Discord server.
  expect(d.pingsOf(reply)).toEqual({ everyone: true, users: [], roles: [], repliedUser: alice.id });
  expect(d.pingsNobody(reply)).toBe(false);
});

test("the bot's own messages come back as messageCreate, like on Discord", async () => {
  const ch = freshChannel('echo');
  const echoed = nextEvent(client, 'messageCreate', (m) => m.channelId === ch.id && m.author.id === d.bot.id);
  await (await textChannel(ch.id)).send({ content: 'self', allowedMentions: { parse: [] } });
  const [m] = await echoed;
  expect(m.content).toBe('self');
});

test('typing is recorded and answered 204 with no body and no content-type', async () => {
  const ch = freshChannel('typing');
  await (await textChannel(ch.id)).sendTyping();
  expect(d.typingIn(ch.id)).toHaveLength(1);
  // Pitfall 1: discord.js JSON-parses any JSON-labelled response; a 204 must have no content-type.
  const res = await fetch(`${d.apiUrl}/v10/channels/${ch.id}/typing`, {
    method: 'POST',
    headers: { authorization: `Bot ${d.botToken}` },
  });
  expect(res.status).toBe(204);
  expect(res.headers.get('content-type')).toBeNull();
  expect(await res.text()).toBe('');
});

test('history of 150 messages is paginated 100 at a time, newest first', async () => {
  const ch = freshChannel('history');
  const base = Date.now() - 3_600_000;
  const seeded = Array.from({ length: 150 }, (_, i) => d.userSays(ch.id, alice.id, `line ${i}`, { at: base + i * 1000, dispatch: false }));
  const channel = await textChannel(ch.id);
  const first = await channel.messages.fetch({ limit: 100 });
  expect(first.size).toBe(100);
  expect(first.first()!.content).toBe('line 149');
  const second = await channel.messages.fetch({ limit: 100, before: first.last()!.id });
  expect(second.size).toBe(50);
  expect(second.last()!.content).toBe('line 0');
  const contents = [...first.values(), ...second.values()].map((m) => m.content).reverse();
  expect(contents).toEqual(seeded.map((m) => m.content));
  // Backdated ids encode their time, as Discord's do.
  expect(second.last()!.createdTimestamp).toBe(base);

  const after = await channel.messages.fetch({ after: seeded[9].id, limit: 5 });
  expect([...after.values()].map((m) => m.content)).toEqual(['line 14', 'line 13', 'line 12', 'line 11', 'line 10']);
  const around = await channel.messages.fetch({ around: seeded[75].id, limit: 3 });
  expect([...around.values()].map((m) => m.content).sort()).toEqual(['line 74', 'line 75', 'line 76']);
  await expect(channel.messages.fetch({ limit: 101 })).rejects.toMatchObject({ code: 50035 });
});

test('a missing permission answers 403 Missing Permissions (50013); no view answers 50001', async () => {
  const ch = freshChannel('locked');
  const channel = await textChannel(ch.id);
  d.setBotPermissions(ch.id, { SendMessages: false });
  const err = await channel.send('hello').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DiscordAPIError);
  expect(err).toMatchObject({ status: 403, code: 50013 });
  // discord.js saw the same overwrite through CHANNEL_UPDATE.
  await d.waitFor(() => channel.permissionsFor(client.user!)?.has('SendMessages') === false);

  d.setBotPermissions(ch.id, { ViewChannel: false });
  await expect(channel.messages.fetch({ limit: 5 })).rejects.toMatchObject({ status: 403, code: 50001 });
  d.setBotPermissions(ch.id, { SendMessages: null, ViewChannel: null });
  await expect(channel.send('back')).resolves.toBeDefined();
});

test('a 429 is waited out by discord.js and the message still arrives once', async () => {
  const ch = freshChannel('ratelimit');
  const channel = await textChannel(ch.id);
  const limits: unknown[] = [];
  const onLimit = (info: unknown) => limits.push(info);
  client.rest.on(RESTEvents.RateLimited, onLimit);
  d.rateLimitNext('POST /channels/:channelId/messages', 0.3);
  const started = Date.now();
  await channel.send('after the limit');
  expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  const attempts = d.requestsTo(`POST /channels/${ch.id}/messages`);
  expect(attempts.map((r) => r.status)).toEqual([429, 200]);
  expect(d.botMessagesIn(ch.id).map((m) => m.content)).toEqual(['after the limit']);
  expect(limits).toHaveLength(1);
  client.rest.off(RESTEvents.RateLimited, onLimit);
});

test('Discord limits: over 2 000 characters → 50035, empty → 50006', async () => {
  const channel = await textChannel(freshChannel('limits').id);
  await expect(channel.send('x'.repeat(2001))).rejects.toMatchObject({ status: 400, code: 50035 });
  await expect(channel.send({ content: '   ' })).rejects.toMatchObject({ status: 400, code: 50006 });
  await expect(channel.send('x'.repeat(2000))).resolves.toBeDefined();
});

test('files: multipart uploads are recorded and attachment URLs are served', async () => {
  const ch = freshChannel('files');
  const channel = await textChannel(ch.id);
  await channel.send({ content: 'see file', files: [new AttachmentBuilder(Buffer.from('# Notes\n'), { name: 'notes.md' })] });
  const sent = d.botMessagesIn(ch.id).at(-1)!;
  expect(sent.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['notes.md', '# Notes\n']]);
  expect(d.requestsTo(`POST /channels/${ch.id}/messages`).at(-1)!.files[0].filename).toBe('notes.md');

  const arrived = nextEvent(client, 'messageCreate', (m) => m.channelId === ch.id && !m.author.bot);
  d.userSays(ch.id, alice.id, '', { attachments: [{ filename: 'log.txt', content: 'line one' }] });
  const [m] = await arrived;
  const att = m.attachments.first()!;
  expect(att.name).toBe('log.txt');
  expect(await (await fetch(att.url)).text()).toBe('line one');
});

test('edits and deletes by people arrive as messageUpdate / messageDelete', async () => {
  const ch = freshChannel('edits');
  const seen = nextEvent(client, 'messageCreate', (m) => m.channelId === ch.id);
  const said = d.userSays(ch.id, alice.id, 'first');
  await seen;
  const updated = nextEvent(client, 'messageUpdate', (_old, m) => m.id === said.id);
  d.editMessage(said.id, 'second');
  const [, after] = await updated;
  expect(after.content).toBe('second');
  const deleted = nextEvent(client, 'messageDelete', (m) => m.id === said.id);
  d.deleteMessage(said.id);
  await deleted;
  expect(d.messagesIn(ch.id)).toEqual([]);
});

test('unknown routes answer 404 JSON and are listed in d.unhandled', async () => {
  await expect(client.rest.get('/guilds/1/audit-logs')).rejects.toMatchObject({ status: 404 });
  expect(d.unhandled.map((r) => `${r.method} ${r.path}`)).toContain('GET /guilds/1/audit-logs');
});
