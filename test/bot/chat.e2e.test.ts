import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_MODELS } from '../../src/llm/provider';
import { fenceAfter } from '../../src/bot/discord/split';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { BotHarness, startHarness } from '../helpers/botHarness';

const chatCalls = (h: BotHarness) => h.model.requests.filter((r) => r.model === DEFAULT_MODELS.anthropic.chat);

describe('the bot chatting in project channels', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let other: FakeChannel;
  let alice: FakeUser;

  beforeEach(async () => {
    h = await startHarness({
      setup: (d) => {
        const b = d.setupBasic({ channelName: 'general' });
        guild = b.guild;
        general = b.channel;
        alice = b.user;
        other = d.createTextChannel(guild.id, { name: 'design' });
      },
    });
  });
  afterEach(async () => {
    await h.close();
  });

  it('answers a mention with typing and a reply whose request carries the relevant memory line; an unrelated mention gets no recall', async () => {
    h.seed(
      guild.id,
      general.id,
      'MEMORY.md',
      '# Channel Memory\n\n- [m-aaaaaa] The nightly backup job runs at 02:00 UTC on the db-3 host [from: alice, 2026-11-01]\n',
    );
    // Slower than the typing delay, so the indicator shows.
    h.model.setHandler(async () => {
      await new Promise((r) => setTimeout(r, 700));
      return 'The backup runs at 02:00 UTC.';
    });
    const q = h.discord.userSays(general.id, alice.id, 'when does the nightly backup run?', { mentionsBot: true });
    const reply = await h.discord.waitForBotMessage(general.id, { after: q.id });
    expect(reply.content).toBe('The backup runs at 02:00 UTC.');
    expect(reply.reference?.messageId).toBe(q.id);
    expect(h.discord.typingIn(general.id).length).toBeGreaterThanOrEqual(1);
    expect(chatCalls(h)[0].lastUserText).toContain('The nightly backup job runs at 02:00 UTC on the db-3 host');

    const q2 = h.discord.userSays(general.id, alice.id, 'tell me a joke about penguins', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q2.id });
    expect(chatCalls(h)[1].lastUserText).not.toContain('recalled_memory');
  });

  it('the probes handed to the composition root see each stage of a turn, in order, for the message that triggered it', async () => {
    await h.close();
    const marks: { id: string; stage: string; at: number }[] = [];
    h = await startHarness({
      setup: (d) => {
        const b = d.setupBasic({ channelName: 'general' });
        general = b.channel;
        alice = b.user;
      },
      probes: { trace: (id, stage, at) => marks.push({ id, stage, at }) },
    });
    h.model.setHandler(() => 'traced');
    const q = h.discord.userSays(general.id, alice.id, 'ping', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q.id });
    // The last mark follows the send's response, which may land just after the fake shows the message.
    for (let i = 0; i < 200 && !marks.some((m) => m.stage === 'send-done'); i++) await new Promise((r) => setTimeout(r, 10));
    const mine = marks.filter((m) => m.id === q.id);
    expect(mine.map((m) => m.stage)).toEqual(['received', 'model-sent', 'model-done', 'send-issued', 'send-done']);
    expect(mine.map((m) => m.at)).toEqual([...mine.map((m) => m.at)].sort((a, b) => a - b));
  });

  it('answers through the channel object the message carried, without looking the channel up again', async () => {
    await h.close();
    let evicted = false;
    h = await startHarness({
      setup: (d) => {
        const b = d.setupBasic({ channelName: 'general' });
        general = b.channel;
        alice = b.user;
      },
      // The moment the message is received, the client forgets the channel: a lookup by id would
      // have to ask Discord for it again.
      probes: {
        trace: (_id, stage) => {
          if (stage === 'received' && !evicted) evicted = h.bot.client.channels.cache.delete(general.id);
        },
      },
    });
    h.model.setHandler(() => 'straight back');
    const q = h.discord.userSays(general.id, alice.id, 'ping', { mentionsBot: true });
    const reply = await h.discord.waitForBotMessage(general.id, { after: q.id });
    expect(evicted).toBe(true);
    expect(reply.content).toBe('straight back');
    expect(h.discord.requestsTo((r) => r.method === 'GET' && r.path === `/channels/${general.id}`)).toEqual([]);
  });

  it('ignores messages that do not mention it, other bots, and itself', async () => {
    h.model.setHandler(() => 'hi');
    const robot = h.discord.addMember(guild.id, { username: 'deploybot', bot: true });
    h.discord.userSays(general.id, alice.id, 'just talking among ourselves');
    h.discord.userSays(general.id, robot.id, 'build 512 is green, any questions?', { mentionsBot: true });
    h.discord.userSays(general.id, h.discord.bot.id, 'talking to myself now', { mentionsBot: true });
    // Events arrive in order and a channel's turns run in order: once this person's mention is
    // answered, the three before it were taken in and dropped, not still on their way.
    const q = h.discord.userSays(general.id, alice.id, 'ping', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q.id });
    expect(chatCalls(h)).toHaveLength(1);
    expect(
      chatCalls(h)[0]
        .messages.map((m) => m.text)
        .join('\n'),
    ).not.toMatch(/build 512|talking to myself|among ourselves/);
    expect(h.discord.botMessagesIn(general.id).map((m) => m.content)).toEqual(['talking to myself now', 'hi'].map((t) => expect.stringContaining(t)));
  });

  it('splits a 5,000-character answer under 2,000 with balanced code fences', async () => {
    const code = Array.from({ length: 80 }, (_, i) => `const value${i} = compute(${i}); // step ${i}`).join('\n');
    const long = `Here is the script:\n\n\`\`\`ts\n${code}\n\`\`\`\n\n${'More explanation follows here. '.repeat(60)}`;
    expect(long.length).toBeGreaterThan(5000);
    h.model.setHandler(() => long);
    const q = h.discord.userSays(general.id, alice.id, 'write the script', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q.id });
    await h.discord.waitFor(() => (h.discord.botMessagesIn(general.id).length >= 3 ? true : undefined), 5000, 'three parts');
    const parts = h.discord.botMessagesIn(general.id);
    for (const p of parts) {
      expect(p.content.length).toBeLessThanOrEqual(2000);
      expect(fenceAfter(p.content)).toBeNull();
    }
    expect(parts[1].content.startsWith('```ts')).toBe(true);
    const joined = parts.map((p) => p.content).join('\n');
    for (let i = 0; i < 80; i++) expect(joined).toContain(`const value${i} = compute(${i});`);
  });

  it('pings nobody, whatever the model writes', async () => {
    h.model.setHandler(() => `@everyone look! <@${alice.id}> and <@&${guild.id}> and @here`);
    const q = h.discord.userSays(general.id, alice.id, 'say hi to everyone', { mentionsBot: true });
    const reply = await h.discord.waitForBotMessage(general.id, { after: q.id });
    expect(reply.content).toContain('@everyone');
    expect(h.discord.pingsNobody(reply)).toBe(true);
  });

  it("never mixes two channels' memories", async () => {
    h.seed(guild.id, general.id, 'MEMORY.md', '- [m-bbbbbb] The staging password vault is called Lighthouse [from: a, 2026-11-01]\n');
    h.seed(guild.id, other.id, 'MEMORY.md', '- [m-cccccc] The design system vault of icons is called Seashell [from: b, 2026-11-01]\n');
    h.model.setHandler(() => 'ok');
    const q1 = h.discord.userSays(general.id, alice.id, 'what is the vault called?', { mentionsBot: true });
    const q2 = h.discord.userSays(other.id, alice.id, 'what is the vault called?', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q1.id });
    await h.discord.waitForBotMessage(other.id, { after: q2.id });
    const texts = chatCalls(h).map((r) => JSON.stringify(r.body));
    const gen = texts.find((t) => t.includes('Lighthouse'))!;
    const des = texts.find((t) => t.includes('Seashell'))!;
    expect(gen).toBeDefined();
    expect(des).toBeDefined();
    expect(gen).not.toContain('Seashell');
    expect(des).not.toContain('Lighthouse');
  });

  it('answers a burst in one channel in order, without losing a message', async () => {
    let n = 0;
    h.model.setHandler(async (req) => {
      await new Promise((r) => setTimeout(r, 30));
      return `answer ${++n} to: ${req.lastUserText
        .split('\n')
        .map((l) => l.replace(/^.*?: /, ''))
        .join(' | ')}`;
    });
    const qs = Array.from({ length: 5 }, (_, i) => h.discord.userSays(general.id, alice.id, `question ${i}`, { mentionsBot: true }));
    await h.discord.waitFor(
      () => {
        const all = h.discord
          .botMessagesIn(general.id)
          .map((m) => m.content)
          .join('\n');
        return qs.every((_, i) => all.includes(`question ${i}`)) ? true : undefined;
      },
      8000,
      'every question answered',
    );
    const replies = h.discord.botMessagesIn(general.id).map((m) => m.content);
    const order = replies
      .join('\n')
      .match(/question \d/g)!
      .map((s) => Number(s.slice(-1)));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(new Set(order).size).toBe(5);
  });

  it('waits out a Discord 429 and a model 429, then answers', async () => {
    h.discord.rateLimitNext((r) => r.method === 'POST' && /\/channels\/\d+\/messages$/.test(r.path), 0.2);
    h.model.enqueue({ error: { status: 429 }, retryAfterMs: 20 }, 'made it');
    const q = h.discord.userSays(general.id, alice.id, 'are you there?', { mentionsBot: true });
    const reply = await h.discord.waitForBotMessage(general.id, { after: q.id, timeoutMs: 8000 });
    expect(reply.content).toBe('made it');
    expect(h.discord.botMessagesIn(general.id)).toHaveLength(1);
  });

  it('tells the channel honestly when the model is down', async () => {
    h.model.setHandler(() => ({ error: { status: 529 }, retryAfterMs: 5 }));
    const q = h.discord.userSays(general.id, alice.id, 'hello?', { mentionsBot: true });
    const reply = await h.discord.waitForBotMessage(general.id, { after: q.id, timeoutMs: 8000 });
    expect(reply.content).toMatch(/overloaded|unavailable|try again/i);
    expect(reply.content).not.toMatch(/at .*\.ts:\d+|Error:/);
  });

  it('logs messages to log.jsonl with secrets redacted, and a deleted message leaves the prompt', async () => {
    h.model.setHandler(() => 'noted');
    const q = h.discord.userSays(general.id, alice.id, 'our token is ghp_abcdefghijklmnopqrstuvwxyz0123456789AB keep it', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q.id });
    const log = fs.readFileSync(path.join(h.dataDir, guild.id, general.id, 'log.jsonl'), 'utf8');
    expect(log).toContain('"type":"message"');
    expect(log).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz');
    h.discord.deleteMessage(q.id);
    await h.discord.waitFor(
      () => (fs.readFileSync(path.join(h.dataDir, guild.id, general.id, 'log.jsonl'), 'utf8').includes('"type":"delete"') ? true : undefined),
      3000,
      'delete record',
    );
    const q2 = h.discord.userSays(general.id, alice.id, 'what did I say before?', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q2.id });
    expect(JSON.stringify(chatCalls(h)[1].body)).not.toContain('keep it');
  });

  it('a private thread keeps what it is told: the parent channel never recalls it', async () => {
    h.model.setHandler(() => 'noted');
    const thread = h.discord.createThread(general.id, { name: 'hr', ownerId: alice.id, private: true });
    const q = h.discord.userSays(thread.id, alice.id, 'remember that the reorg announcement is planned for March 3rd', { mentionsBot: true });
    const reply = await h.discord.waitForBotMessage(thread.id, { after: q.id });
    expect(reply.content).toMatch(/Saved to memory as m-/);
    const parentMemory = path.join(h.dataDir, guild.id, general.id, 'MEMORY.md');
    expect(fs.existsSync(parentMemory) ? fs.readFileSync(parentMemory, 'utf8') : '').not.toContain('reorg');
    expect(fs.readFileSync(path.join(h.dataDir, guild.id, general.id, 'threads', thread.id, 'MEMORY.md'), 'utf8')).toContain('reorg announcement');
    // Asked again inside the thread, it is recalled; asked in the parent, it is not.
    const inThread = h.discord.userSays(thread.id, alice.id, 'when is the reorg announcement planned?', { mentionsBot: true });
    await h.discord.waitForBotMessage(thread.id, { after: inThread.id });
    expect(chatCalls(h).pop()!.lastUserText).toContain('reorg announcement is planned for March 3rd');
    const inParent = h.discord.userSays(general.id, alice.id, 'when is the reorg announcement planned?', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: inParent.id });
    expect(JSON.stringify(chatCalls(h).pop()!.body)).not.toContain('March 3rd');
  });
});
