import { spawn } from 'node:child_process';
import path from 'node:path';
import { ConversationStore } from '../../src/chat/conversationStore';
import { silentLogger } from '../../src/log/logger';
import { ChannelStore } from '../../src/memory/store';
import { BotHarness, startHarness } from '../helpers/botHarness';

/**
 * The bot killed with SIGKILL in the middle of a burst, at the moment one of its replies reaches
 * Discord, then started again: every reply Discord received has its exchange in the stored
 * conversation (the journal replays), and no exchange is stored twice.
 */
describe('a bot killed with SIGKILL in the middle of a burst', () => {
  let h: BotHarness;
  afterEach(async () => {
    await h.close();
  });

  it('loses no exchange whose reply was sent, and duplicates none, after a restart', async () => {
    let ids = { guild: '', channels: [] as string[], alice: '' };
    h = await startHarness({
      launch: false,
      setup: (d) => {
        const b = d.setupBasic({ channelName: 'ops' });
        ids = { guild: b.guild.id, channels: [b.channel.id, d.createTextChannel(b.guild.id, { name: 'dev' }).id], alice: b.user.id };
      },
    });
    h.model.setHandler((req) => `ack ${(req.lastUserText.match(/msg-\d+-\d+/g) ?? []).join(' ')}`);
    // 'none': the crash-bot fixture's own fault points never fire; this test kills it from outside.
    const child = spawn(process.execPath, [path.join(__dirname, 'fixtures/crash-bot.js'), JSON.stringify(h.settings), 'none'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d) => {
        if (String(d).includes('ready')) resolve();
      });
      child.once('exit', () => reject(new Error(`child exited before it was ready: ${err}`)));
    });
    const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_c, sig) => r(sig)));
    // Killed the instant Discord receives the sixth reply: the bot has no time to write anything after it.
    let replies = 0;
    const off = h.discord.on('request', (r) => {
      if (r.route === 'POST /channels/:channelId/messages' && ++replies === 6) child.kill('SIGKILL');
    });
    let killed = false;
    void exited.then(() => (killed = true));
    // Mentions keep coming while the bot answers (a mention waiting behind a turn joins the next one).
    for (let i = 0; i < 200 && !killed; i++) {
      for (const [c, channel] of ids.channels.entries()) h.discord.userSays(channel, ids.alice, `<@bot> msg-${c}-${i}`, { mentionsBot: true });
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(await exited).toBe('SIGKILL');
    off();
    const sent = () => ids.channels.map((c) => h.discord.botMessagesIn(c).map((m) => m.content));
    const before = sent();
    expect(before.flat().length).toBeGreaterThanOrEqual(6);

    // The restart: the bot reads the conversations back and answers on top of them.
    await h.launch();
    for (const channel of ids.channels) h.discord.userSays(channel, ids.alice, `<@bot> msg-9-9 after the restart`, { mentionsBot: true });
    await h.discord.waitFor(
      () => (sent().every((c, i) => c.length > before[i].length) ? true : undefined),
      30_000,
      'a reply in each channel after the restart',
    );

    // The catch-up answers what was owed at the kill beside the new mention: stopped (turns in flight
    // finish, writes land) before the conversations are read, so none of those replies is still on its way.
    await h.bot.stop();
    h.bot = undefined as unknown as BotHarness['bot'];
    const store = new ChannelStore({ root: h.dataDir });
    const conversations = new ConversationStore({ store, logger: silentLogger() });
    for (const [i, channelId] of ids.channels.entries()) {
      const conv = await conversations.get({ kind: 'discord', guildId: ids.guild, channelId });
      const answers = conv.turns.filter((t) => t.role === 'assistant').map((t) => t.content);
      // Every reply Discord received, before and after the kill, is an exchange of the conversation.
      for (const reply of sent()[i]) expect(answers).toContain(reply);
      // Nothing twice: no message id in two user turns, no answer stored twice, turns alternating.
      const messageIds = conv.turns.flatMap((t) => t.ids ?? []);
      expect(new Set(messageIds).size).toBe(messageIds.length);
      expect(new Set(answers).size).toBe(answers.length);
      expect(conv.turns.map((t) => t.role)).toEqual(conv.turns.map((_, k) => (k % 2 ? 'assistant' : 'user')));
    }
  }, 90_000);
});
