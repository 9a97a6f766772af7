import { ChannelType } from 'discord.js';
import type { FakeRequest } from '../fakes/model/types';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { BotHarness, startHarness } from '../helpers/botHarness';

/**
 * The Secretary opens threads for focused topics: 🧵 on a message, /thread in a channel, /thread
 * inside a forum post (a new post). Titles come from one small model call.
 */
function titler(req: FakeRequest): string {
  if (/name a new discussion thread/.test(req.system)) {
    const topic = /<topic>\n?([\s\S]*?)\n?<\/topic>/.exec(req.messages[0].text)?.[1]?.trim();
    return JSON.stringify({ title: topic ? `Topic: ${topic}` : 'Release day choice', purpose: 'Decide which weekday production releases happen.' });
  }
  return 'ok';
}

describe('threads the Secretary opens', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let alice: FakeUser;

  beforeEach(async () => {
    h = await startHarness({
      setup: (d) => {
        const b = d.setupBasic({ channelName: 'release' });
        guild = b.guild;
        general = b.channel;
        alice = b.user;
      },
    });
    h.model.setHandler(titler);
  });
  afterEach(async () => {
    await h.close();
  });

  it('🧵 on a message opens a public thread from it, titled by the model, with one line saying what it is for', async () => {
    const m = h.discord.userSays(general.id, alice.id, 'Should production releases move from Friday to Tuesday?');
    h.discord.react(general.id, m.id, alice.id, '🧵');
    const threadId = await h.discord.waitFor(() => h.discord.message(m.id).threadId ?? undefined, 5000, 'the thread');
    const thread = h.discord.channel(threadId);
    expect(thread.name).toBe('Release day choice');
    expect(thread.type).toBe(ChannelType.PublicThread);
    const first = await h.discord.waitForBotMessage(threadId);
    expect(first.content).toMatch(/^🧵 Decide which weekday production releases happen\. When it is settled, \/resolve/);
    expect(h.discord.pingsNobody(first)).toBe(true);
    expect(h.model.requests.filter((r) => /name a new discussion thread/.test(r.system))).toHaveLength(1);
    // A second 🧵 on the same message opens nothing more.
    h.discord.react(general.id, m.id, alice.id, '🧵');
    await new Promise((r) => setTimeout(r, 300));
    expect([...h.discord.state.channels.values()].filter((c) => c.parentId === general.id)).toHaveLength(1);
  });

  it('/thread with a topic opens a thread from the latest message; the answer links it, only the asker sees it', async () => {
    h.discord.userSays(general.id, alice.id, 'first message');
    const latest = h.discord.userSays(general.id, alice.id, 'the importer keeps timing out on big files');
    const ix = h.discord.slashCommand(general.id, alice.id, 'thread', { topic: 'importer timeouts' });
    await h.discord.waitForAnswer(ix);
    const threadId = h.discord.message(latest.id).threadId!;
    expect(threadId).toBeTruthy();
    expect(h.discord.channel(threadId).name).toBe('Topic: importer timeouts');
    expect(ix.original!.content).toBe(`Opened <#${threadId}>: Topic: importer timeouts`);
    expect(ix.original!.flags & 64).toBe(64);
  });

  it('/thread inside a forum post opens a new post in the forum', async () => {
    const forum = h.discord.createForum(guild.id, { name: 'ideas' });
    const { thread: post } = h.discord.createForumPost(forum.id, { name: 'first idea', ownerId: alice.id, content: 'a first idea' });
    const ix = h.discord.slashCommand(post.id, alice.id, 'thread', { topic: 'dark mode' });
    await h.discord.waitForAnswer(ix);
    const posts = [...h.discord.state.channels.values()].filter((c) => c.parentId === forum.id && c.name === 'Topic: dark mode');
    expect(posts).toHaveLength(1);
    expect(ix.original!.content).toBe(`Opened <#${posts[0].id}>: Topic: dark mode`);
    expect(h.discord.messagesIn(posts[0].id)[0].content).toMatch(/^🧵 Decide which weekday/);
  });

  it('without Create Public Threads: a one-line answer naming the permission, and no thread', async () => {
    h.discord.setBotPermissions(general.id, { CreatePublicThreads: false });
    const m = h.discord.userSays(general.id, alice.id, 'let us discuss the roadmap');
    const ix = h.discord.slashCommand(general.id, alice.id, 'thread', {});
    await h.discord.waitForAnswer(ix);
    expect(ix.original!.content).toBe('I need the Create Public Threads and Send Messages in Threads permissions in this channel to open a thread.');
    expect(h.discord.message(m.id).threadId).toBeNull();
    expect(h.model.requests.filter((r) => /name a new discussion thread/.test(r.system))).toHaveLength(0);
  });
});
