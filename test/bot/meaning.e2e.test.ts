import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_MODELS } from '../../src/llm/provider';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { BotHarness, startHarness } from '../helpers/botHarness';

/**
 * Recall by meaning through the whole bot: the real discord.js client on the fake Discord, the real
 * packaged sentence model in its worker thread, the vector cache in the data root.
 */
const chatCalls = (h: BotHarness) => h.model.requests.filter((r) => r.model === DEFAULT_MODELS.anthropic.chat);
const MEMORY = [
  '# Channel Memory',
  '',
  '- [m-aaaaa1] The nightly backup job runs at 02:00 UTC on the db-3 host [from: alice, 2026-11-01]',
  '- [m-aaaaa2] Priya owns the payments service. [from: bob, 2026-11-02]',
  '- [m-aaaaa3] We use pnpm for installs. [from: bob, 2026-11-03]',
  '- [m-aaaaa4] The office is closed on public holidays. [from: carol, 2026-11-04]',
  '',
].join('\n');
const QUESTION = 'At what hour is the database copied every night?';

describe('recall by meaning in Discord', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let alice: FakeUser;
  let dataDir: string;

  beforeEach(async () => {
    const cacheDir = (d: string) => path.join(d, '.cache', 'vectors');
    h = await startHarness({
      launch: false,
      setup: (d) => {
        const b = d.setupBasic({ channelName: 'general' });
        guild = b.guild;
        general = b.channel;
        alice = b.user;
      },
    });
    dataDir = h.dataDir;
    // A generous wait for the question's vector: on a loaded machine the default (150 ms) can pass
    // and recall would go by words, which is not what this test is about.
    // The waits for the replies below are longer still: the first loads the model while it asks.
    h.settings.semantic = { mode: 'local', cacheDir: cacheDir(dataDir), queryTimeoutMs: 10_000 };
    await h.launch();
  });
  afterEach(async () => {
    await h.close();
  });

  it('answers a question worded unlike the memory line: words alone first, meaning once the line is embedded in the background', async () => {
    h.seed(guild.id, general.id, 'MEMORY.md', MEMORY);
    h.model.setHandler(() => 'noted');
    const q1 = h.discord.userSays(general.id, alice.id, QUESTION, { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q1.id, timeoutMs: 30_000 });
    // The line had no vector yet: the reply did not wait for indexing, and words alone share nothing specific.
    expect(chatCalls(h)[0].lastUserText).not.toContain('recalled_memory');

    await h.bot.runtime.recall.idle();
    const q2 = h.discord.userSays(general.id, alice.id, QUESTION, { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q2.id, timeoutMs: 30_000 });
    expect(chatCalls(h)[1].lastUserText).toContain('The nightly backup job runs at 02:00 UTC on the db-3 host');
    expect(chatCalls(h)[1].lastUserText).not.toContain('Priya owns the payments service');

    // Vectors live in the data root's cache, never in the memory files.
    expect(fs.readFileSync(path.join(dataDir, guild.id, general.id, 'MEMORY.md'), 'utf8')).toBe(MEMORY);
    expect(fs.readdirSync(path.join(dataDir, '.cache', 'vectors')).some((n) => n.endsWith('.vec'))).toBe(true);
  }, 90_000);
});
