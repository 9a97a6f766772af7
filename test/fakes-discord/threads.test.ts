/**
 * Pins, reactions, threads and forums on the fake, through the real discord.js Client: what
 * the Secretary's tests (condense on 📝, pin, archive/lock/forum-tag triggers, sweeps) rely on.
 */
import { ChannelType, type Client, type ForumChannel, type TextChannel, type ThreadChannel } from 'discord.js';
import { FakeDiscord } from '../fakes/discord/fakeDiscord';
import type { FakeGuild, FakeUser } from '../fakes/discord/state';
import { loggedIn, nextEvent } from './helpers';

let d: FakeDiscord;
let client: Client;
let guild: FakeGuild;
let alice: FakeUser;
let bob: FakeUser;

beforeAll(async () => {
  d = await FakeDiscord.start({ limits: { maxPins: 5 } });
  ({ guild, user: alice } = d.setupBasic());
  bob = d.addMember(guild.id, { username: 'bob' });
  client = await loggedIn(d, { rest: { retries: 0 } });
});

afterAll(async () => {
  await client.destroy();
  await d.stop();
});

afterEach(() => expect(d.problems).toEqual([]));

async function textChannel(id: string): Promise<TextChannel> {
  return (await client.channels.fetch(id)) as TextChannel;
}

test('pin and unpin use the new pins route; CHANNEL_PINS_UPDATE arrives; fetchPins lists the pin', async () => {
  const ch = d.createTextChannel(guild.id, { name: 'pins' });
  const said = d.userSays(ch.id, alice.id, 'decision: ship friday');
  const channel = await textChannel(ch.id);
  const msg = await channel.messages.fetch(said.id);

  const pinsUpdate = nextEvent(client, 'channelPinsUpdate', (c) => c.id === ch.id);
  await msg.pin();
  await pinsUpdate;
  expect(d.requestsTo('PUT /channels/:channelId/messages/pins/:messageId')).toHaveLength(1);
  expect(d.pinsIn(ch.id).map((p) => [p.message.id, p.byUserId])).toEqual([[said.id, d.bot.id]]);
  // Discord leaves a "pinned a message" notice (type 6); bots must not treat it as chat.
  expect(d.messagesIn(ch.id).map((m) => m.type)).toEqual([0, 6]);

  const pins = await channel.messages.fetchPins();
  expect(pins.items.map((p) => p.message.id)).toEqual([said.id]);
  expect(pins.hasMore).toBe(false);

  await msg.unpin();
  expect(d.pinsIn(ch.id)).toEqual([]);
  expect(d.requestsTo('DELETE /channels/:channelId/messages/pins/:messageId')).toHaveLength(1);
});

test('the legacy /pins routes work too, and the pin limit answers 30003', async () => {
  const ch = d.createTextChannel(guild.id, { name: 'full-pins' });
  const msgs = Array.from({ length: 6 }, (_, i) => d.userSays(ch.id, alice.id, `m${i}`, { dispatch: false }));
  for (const m of msgs.slice(0, 4)) d.pin(m.id, bob.id);
  await client.rest.put(`/channels/${ch.id}/pins/${msgs[4].id}`);
  const legacy = (await client.rest.get(`/channels/${ch.id}/pins`)) as Array<{ id: string }>;
  expect(legacy[0].id).toBe(msgs[4].id);
  // maxPins is 5 in this fake (Discord: 250).
  await expect(client.rest.put(`/channels/${ch.id}/messages/pins/${msgs[5].id}`)).rejects.toMatchObject({
    status: 400,
    code: 30003,
  });
  expect(d.pinsIn(ch.id).filter((p) => p.byUserId === bob.id)).toHaveLength(4);
});

test('a reaction on an uncached message arrives, as a partial', async () => {
  const ch = d.createTextChannel(guild.id, { name: 'react' });
  const old = d.userSays(ch.id, alice.id, 'an old message', { dispatch: false });
  const added = nextEvent(client, 'messageReactionAdd', (r) => r.message.id === old.id);
  d.react(ch.id, old.id, bob.id, '📝');
  const [reaction, user] = await added;
  expect(reaction.partial).toBe(true);
  expect(reaction.message.partial).toBe(true);
  expect(reaction.emoji.name).toBe('📝');
  expect(user.id).toBe(bob.id);
  const full = await reaction.message.fetch();
  expect(full.content).toBe('an old message');

  await full.react('✅');
  expect(d.message(old.id).reactions.get('✅')?.userIds.has(d.bot.id)).toBe(true);
  expect(d.requestsTo('PUT /channels/:channelId/messages/:messageId/reactions/:emoji/@me')).toHaveLength(1);
});

test('archiving a cached thread emits threadUpdate; locking too', async () => {
  const ch = d.createTextChannel(guild.id, { name: 'threads' });
  const created = nextEvent(client, 'threadCreate', (t) => t.parentId === ch.id);
  const thread = d.createThread(ch.id, { name: 'design talk', ownerId: alice.id });
  await created;
  d.userSays(thread.id, alice.id, 'proposal');

  const archived = nextEvent(client, 'threadUpdate', (_o, t) => t.id === thread.id);
  d.archiveThread(thread.id);
  const [before, after] = await archived;
  expect(before.archived).toBe(false);
  expect(after.archived).toBe(true);

  const locked = nextEvent(client, 'threadUpdate', (_o, t) => t.id === thread.id && t.locked === true);
  d.lockThread(thread.id, { archived: true });
  await locked;
  // A locked, archived thread refuses the bot's messages without Manage Threads.
  d.setBotPermissions(ch.id, { ManageThreads: false });
  const t = (await client.channels.fetch(thread.id)) as ThreadChannel;
  await expect(t.send('late')).rejects.toMatchObject({ code: 50083 });
  d.setBotPermissions(ch.id, { ManageThreads: null });
});

test('the bot starts a thread on a message and archives it through PATCH', async () => {
  const ch = d.createTextChannel(guild.id, { name: 'bot-threads' });
  const said = d.userSays(ch.id, alice.id, 'long topic', { dispatch: false });
  const msg = await (await textChannel(ch.id)).messages.fetch(said.id);
  const thread = await msg.startThread({ name: 'Topic' });
  expect(thread.id).toBe(said.id);
  expect(d.channel(thread.id).thread?.ownerId).toBe(d.bot.id);
  await thread.send('inside');
  expect(d.botMessagesIn(thread.id).map((m) => m.content)).toEqual(['inside']);
  await thread.setArchived(true);
  expect(d.channel(thread.id).thread?.archived).toBe(true);
  // Sending to an archived (unlocked) thread reopens it, as on Discord.
  await thread.send('reopened');
  expect(d.channel(thread.id).thread?.archived).toBe(false);
});

test('archived and active thread listings (sweeps after a restart)', async () => {
  const ch = d.createTextChannel(guild.id, { name: 'sweep' });
  const open = d.createThread(ch.id, { name: 'open', ownerId: alice.id });
  const done1 = d.createThread(ch.id, { name: 'done-1', ownerId: alice.id });
  const done2 = d.createThread(ch.id, { name: 'done-2', ownerId: bob.id });
  const secret = d.createThread(ch.id, { name: 'secret', ownerId: bob.id, private: true });
  d.archiveThread(done1.id);
  d.archiveThread(done2.id);
  d.archiveThread(secret.id);

  const channel = await textChannel(ch.id);
  const publicArchived = await channel.threads.fetchArchived({ type: 'public' });
  expect([...publicArchived.threads.keys()].sort()).toEqual([done1.id, done2.id].sort());
  const privateArchived = await channel.threads.fetchArchived({ type: 'private', fetchAll: true });
  expect([...privateArchived.threads.keys()]).toEqual([secret.id]);
  const joined = await channel.threads.fetchArchived({ type: 'private' });
  expect([...joined.threads.keys()]).toEqual([secret.id]);
  const active = await channel.threads.fetchActive();
  expect([...active.threads.keys()]).toEqual([open.id]);
});

test('a private thread without the bot stays invisible to it', async () => {
  const ch = d.createTextChannel(guild.id, { name: 'private' });
  d.setBotPermissions(ch.id, { ManageThreads: false });
  const hidden = d.createThread(ch.id, { name: 'hr', ownerId: alice.id, private: true, botIsMember: false });
  const seen: string[] = [];
  const listener = (m: { channelId: string }) => void seen.push(m.channelId);
  client.on('messageCreate', listener);
  d.userSays(hidden.id, alice.id, 'confidential');
  const visible = d.userSays(ch.id, alice.id, 'public');
  await d.waitFor(() => seen.includes(visible.channelId));
  client.off('messageCreate', listener);
  expect(seen).not.toContain(hidden.id);
  await expect(client.rest.get(`/channels/${hidden.id}/messages`)).rejects.toMatchObject({ code: 50001 });
});

test('forum posts: tags arrive on the thread; retagging emits threadUpdate; the forum itself takes no messages', async () => {
  const forum = d.createForum(guild.id, { name: 'decisions', tags: ['open', 'resolved'] });
  const created = nextEvent(client, 'threadCreate', (t) => t.parentId === forum.id);
  const { thread, starter } = d.createForumPost(forum.id, { ownerId: alice.id, name: 'Pick a DB', content: 'Postgres or SQLite?', tags: ['open'] });
  const [t] = await created;
  const forumChannel = (await client.channels.fetch(forum.id)) as ForumChannel;
  const tagName = (id: string) => forumChannel.availableTags.find((x) => x.id === id)?.name;
  expect(t.appliedTags.map(tagName)).toEqual(['open']);
  expect(starter.id).toBe(thread.id);
  expect((await t.fetchStarterMessage())?.content).toBe('Postgres or SQLite?');

  const retagged = nextEvent(client, 'threadUpdate', (_o, n) => n.id === thread.id);
  d.setForumTags(thread.id, ['resolved']);
  const [, after] = await retagged;
  expect(after.appliedTags.map(tagName)).toEqual(['resolved']);

  await expect(client.rest.post(`/channels/${forum.id}/messages`, { body: { content: 'x' } })).rejects.toMatchObject({ code: 50008 });
  const post = await forumChannel.threads.create({ name: 'Bot post', message: { content: 'summary' }, appliedTags: [forumChannel.availableTags[1].id] });
  expect(post.type).toBe(ChannelType.PublicThread);
  expect(d.messagesIn(post.id).map((m) => m.content)).toEqual(['summary']);
});
