import fs from 'node:fs';
import path from 'node:path';
import { BotHarness, startHarness } from '../helpers/botHarness';

const HOUR = 3_600_000;

/**
 * The catch-up with the real client against the fake Discord: messages the gateway never delivered
 * (a new session after the old one was lost, or the bot stopped) are read back from the channel's
 * history and answered once; those past `discord.catchUp.maxAgeMinutes` are not, and the channel
 * is told in one line that pings nobody.
 */
describe('catching up on messages the bot never received', () => {
  let h: BotHarness;
  let ids: { guild: string; channel: string; alice: string };
  afterEach(async () => {
    await h.close();
  });

  const log = () =>
    fs
      .readFileSync(path.join(h.dataDir, ids.guild, ids.channel, 'log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; id?: string; ids?: string[]; how?: string; addressed?: boolean });

  it('after a reconnect that lost its session, a mention sent in the gap is answered once', async () => {
    h = await startHarness({
      setup: (d) => {
        const b = d.setupBasic({ channelName: 'ops' });
        ids = { guild: b.guild.id, channel: b.channel.id, alice: b.user.id };
      },
    });
    h.model.setHandler((req) => `answer to ${/question-\d/.exec(req.lastUserText)?.[0] ?? '?'}`);
    const first = h.discord.userSays(ids.channel, ids.alice, 'question-1', { mentionsBot: true });
    await h.discord.waitForBotMessage(ids.channel, { after: first.id });
    expect(log().find((r) => r.id === first.id)).toMatchObject({ type: 'message', addressed: true });
    await h.discord.waitFor(() => (log().some((r) => r.type === 'answered' && r.ids?.includes(first.id) && r.how === 'sent') ? true : undefined));

    // The session is lost; while the client waits to identify again, a mention arrives that no gateway delivers.
    const ready = new Promise<void>((resolve) => h.bot.client.once('shardReady', () => resolve()));
    h.discord.invalidateSessions();
    await h.discord.disconnect(4000);
    const gap = h.discord.userSays(ids.channel, ids.alice, 'question-2', { mentionsBot: true, dispatch: false });
    await ready;
    const reply = await h.discord.waitForBotMessage(ids.channel, { after: gap.id, timeoutMs: 10_000 });
    expect(reply.content).toContain('answer to question-2');
    expect(reply.reference?.messageId).toBe(gap.id);
    expect(reply.allowedMentions).toMatchObject({ parse: [] });
    // Once: a second catch-up (another new session) finds it settled.
    const again = new Promise<void>((resolve) => h.bot.client.once('shardReady', () => resolve()));
    h.discord.invalidateSessions();
    await h.discord.disconnect(4000);
    await again;
    await new Promise((r) => setTimeout(r, 500));
    expect(h.discord.botMessagesIn(ids.channel)).toHaveLength(2);
  }, 40_000);

  it('a start asks Discord nothing about an archived thread whose log owes nothing, and reads its history when it does', async () => {
    let quiet = '';
    let owing = '';
    h = await startHarness({
      launch: false,
      setup: (d) => {
        const b = d.setupBasic({ channelName: 'ops' });
        ids = { guild: b.guild.id, channel: b.channel.id, alice: b.user.id };
        quiet = d.createThread(b.channel.id, { name: 'old topic', ownerId: b.user.id }).id;
        owing = d.createThread(b.channel.id, { name: 'owed topic', ownerId: b.user.id }).id;
        d.archiveThread(quiet);
        d.archiveThread(owing);
      },
    });
    // What an earlier run left: one thread's mention answered, the other's still owed.
    const record = (id: string, extra: object) =>
      JSON.stringify({ type: 'message', id, author: { id: ids.alice, name: 'alice' }, at: new Date().toISOString(), content: 'q', addressed: true, ...extra });
    const seedLog = (thread: string, lines: string[]) => {
      const dir = path.join(h.dataDir, ids.guild, ids.channel, 'threads', thread);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'log.jsonl'), lines.join('\n') + '\n');
    };
    seedLog(quiet, [record('100', {}), JSON.stringify({ type: 'answered', at: new Date().toISOString(), ids: ['100'], how: 'sent' })]);
    seedLog(owing, [record('200', {})]);
    await h.launch();
    await h.discord.waitFor(() => (h.discord.requestsTo(`GET /channels/${owing}/messages`).length ? true : undefined), 10_000, 'the owed thread read');
    await new Promise((r) => setTimeout(r, 500));
    expect(h.discord.requestsTo(`GET /channels/${quiet}`)).toEqual([]);
    expect(h.discord.requestsTo(`GET /channels/${quiet}/messages`)).toEqual([]);
  }, 30_000);

  it('a restart answers what came while it was down within the bound, and says in one line what it did not', async () => {
    h = await startHarness({
      config: { limits: { maxRetries: 0, requestsPerMinute: 0 }, discord: { catchUp: { maxAgeMinutes: 30 } } },
      setup: (d) => {
        const b = d.setupBasic({ channelName: 'ops' });
        ids = { guild: b.guild.id, channel: b.channel.id, alice: b.user.id };
      },
    });
    h.model.setHandler((req) => `answer to ${(req.lastUserText.match(/question-\d/g) ?? []).join(' ')}`);
    // The last message the bot saw was three hours ago; it went down after it.
    const first = h.discord.userSays(ids.channel, ids.alice, 'question-1', { mentionsBot: true, at: Date.now() - 3 * HOUR });
    await h.discord.waitForBotMessage(ids.channel, { after: first.id });
    await h.bot.stop();

    // While it is down: one mention two hours ago, two recent ones.
    const old = h.discord.userSays(ids.channel, ids.alice, 'question-2 remember that the old fact is stale-kiwi', {
      mentionsBot: true,
      dispatch: false,
      at: Date.now() - 2 * HOUR,
    });
    const recent = [3, 4].map((n) => h.discord.userSays(ids.channel, ids.alice, `question-${n}`, { mentionsBot: true, dispatch: false }));
    await h.launch();
    const reply = await h.discord.waitForBotMessage(ids.channel, { after: recent[1].id, match: (m) => m.content.startsWith('answer'), timeoutMs: 10_000 });
    // One turn takes both recent mentions, and replies to the newest.
    expect(reply.content).toContain('answer to question-3 question-4');
    expect(reply.reference?.messageId).toBe(recent[1].id);
    const notice = await h.discord.waitForBotMessage(ids.channel, { match: (m) => m.content.startsWith('I was away'), timeoutMs: 5_000 });
    expect(notice.content).toBe(
      'I was away: 1 message to me from more than 30 minutes ago was not answered (nor any "remember that" in it). Mention me again if you still need it.',
    );
    expect(notice.allowedMentions).toMatchObject({ parse: [] });
    expect(h.discord.botMessagesIn(ids.channel).some((m) => m.content.includes('question-2'))).toBe(false);
    expect(fs.readFileSync(path.join(h.dataDir, ids.guild, ids.channel, 'MEMORY.md'), 'utf8')).not.toContain('stale-kiwi');
    expect(log().find((r) => r.type === 'answered' && r.how === 'too-old')?.ids).toEqual([old.id]);

    // A second restart repeats neither the answers nor the notice.
    await h.discord.waitFor(() => (log().some((r) => r.type === 'answered' && r.ids?.includes(recent[1].id)) ? true : undefined));
    const before = h.discord.botMessagesIn(ids.channel).length;
    await h.bot.stop();
    await h.launch();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(h.discord.botMessagesIn(ids.channel)).toHaveLength(before);
  }, 40_000);
});
