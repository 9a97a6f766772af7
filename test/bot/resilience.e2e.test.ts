import fs from 'node:fs';
import path from 'node:path';
import { launchBot } from '../../src/bot/start/start';
import { DEFAULT_MODELS } from '../../src/llm/provider';
import { silentLogger } from '../../src/log/logger';
import type { FakeChannel, FakeUser } from '../fakes/discord/state';
import { BotHarness, startHarness } from '../helpers/botHarness';

const chat = (h: BotHarness) => h.model.requests.filter((r) => r.model === DEFAULT_MODELS.anthropic.chat);

describe('resilience on the fake Discord', () => {
  let h: BotHarness;
  let general: FakeChannel;
  let alice: FakeUser;

  beforeEach(async () => {
    h = await startHarness({
      setup: (d) => {
        const b = d.setupBasic();
        general = b.channel;
        alice = b.user;
      },
    });
  });
  afterEach(async () => {
    await h.close();
  });

  it('a gateway disconnect resumes without losing or duplicating replies', async () => {
    h.model.setHandler((r) => `re: ${r.lastUserText.split(': ').pop()}`);
    const q1 = h.discord.userSays(general.id, alice.id, 'before the drop', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q1.id });
    await h.discord.disconnect(4000);
    const q2 = h.discord.userSays(general.id, alice.id, 'during the drop', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q2.id, timeoutMs: 10_000 });
    const q3 = h.discord.userSays(general.id, alice.id, 'after the drop', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q3.id, timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 300));
    const replies = h.discord.botMessagesIn(general.id).map((m) => m.content);
    expect(replies).toEqual(['re: @Minutes before the drop', 're: @Minutes during the drop', 're: @Minutes after the drop']);
  });

  it('a channel whose folder cannot be created still gets its answer, and the log says what is wrong', async () => {
    // A file where the channel's folder should be: nothing can be written for this channel.
    const guildDir = path.join(h.dataDir, general.guildId!);
    fs.mkdirSync(guildDir, { recursive: true });
    fs.writeFileSync(path.join(guildDir, general.id), 'not a folder');
    h.model.setHandler(() => 'still here');
    const q = h.discord.userSays(general.id, alice.id, 'hello?', { mentionsBot: true });
    const reply = await h.discord.waitForBotMessage(general.id, { after: q.id });
    expect(reply.content).toBe('still here');
    await h.discord.waitFor(() => (h.logs.some((l) => /could not create the channel folder/.test(String(l.msg))) ? true : undefined), 3000, 'the log line');
  });

  it('a restart reloads the conversation', async () => {
    h.model.setHandler(() => 'first reply');
    const q1 = h.discord.userSays(general.id, alice.id, 'the codename is Juniper', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q1.id });
    await h.bot.stop();
    h.bot = await launchBot(h.settings, silentLogger());
    await new Promise<void>((r) => (h.bot.client.isReady() ? r() : h.bot.client.once('clientReady', () => r())));
    h.model.setHandler(() => 'second reply');
    const q2 = h.discord.userSays(general.id, alice.id, 'what was the codename?', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q2.id });
    const req = chat(h).pop()!;
    expect(req.messages.map((m) => m.text).join('\n')).toContain('the codename is Juniper');
    expect(req.messages.map((m) => m.text).join('\n')).toContain('first reply');
  });

  it('handles an oversized message, an empty one and an attachment-only one without a crash', async () => {
    h.model.setHandler((r) => `len ${r.lastUserText.length}`);
    const big = h.discord.userSays(general.id, alice.id, `${'word '.repeat(2500)}`, { mentionsBot: true });
    const r1 = await h.discord.waitForBotMessage(general.id, { after: big.id });
    expect(Number(/^len (\d+)/.exec(r1.content)?.[1])).toBeLessThan(9000);
    expect(chat(h)[0].lastUserText).toContain('message clipped');
    expect(r1.content).toMatch(/_\(Your message had 12,5\d\d characters; only the first 8,000 were read\./);
    const empty = h.discord.userSays(general.id, alice.id, '', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: empty.id });
    const file = h.discord.userSays(general.id, alice.id, '', {
      mentionsBot: false,
      attachments: [{ filename: 'plan.pdf', content: Buffer.from('%PDF') }] as never,
      replyTo: r1.id,
    });
    await h.discord.waitForBotMessage(general.id, { after: file.id });
    expect(chat(h)[2].lastUserText).toContain('(attached: plan.pdf)');
  });

  it('a message edited or deleted while being answered does not crash the bot', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    h.model.setHandler(async () => {
      await gate;
      return 'slow answer';
    });
    const q = h.discord.userSays(general.id, alice.id, 'original text', { mentionsBot: true });
    await h.discord.waitFor(() => (h.model.inFlight() > 0 ? true : undefined), 5000, 'model call started');
    h.discord.editMessage(q.id, 'edited text');
    h.discord.deleteMessage(q.id);
    release();
    const reply = await h.discord.waitForBotMessage(general.id, { after: q.id });
    expect(reply.content).toBe('slow answer');
    h.model.setHandler(() => 'still alive');
    const q2 = h.discord.userSays(general.id, alice.id, 'next', { mentionsBot: true });
    expect((await h.discord.waitForBotMessage(general.id, { after: q2.id })).content).toBe('still alive');
    expect(JSON.stringify(chat(h).pop()!.body)).not.toContain('original text');
  });
});
