import { stopWithin } from '../../src/bot/start/start';
import { DEFAULT_MODELS } from '../../src/llm/provider';
import type { FakeChannel, FakeUser } from '../fakes/discord/state';
import { BotHarness, startHarness } from '../helpers/botHarness';

describe('the bot shutting down while the model hangs', () => {
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

  it('aborts the hung request at the budget and stops, sending nothing to the model after', async () => {
    h.model.setHandler(() => ({ text: 'too late', delayMs: 60_000 }));
    h.discord.userSays(general.id, alice.id, 'are you there?', { mentionsBot: true });
    await h.discord.waitFor(() => (h.model.requests.some((r) => r.model === DEFAULT_MODELS.anthropic.chat) ? true : undefined), 5000, 'the chat request');
    const t0 = Date.now();
    await stopWithin(h.bot, 500, h.bot.runtime.logger);
    expect(Date.now() - t0).toBeLessThan(5_000);
    const sent = h.model.requests.length;
    expect(h.model.requests.filter((r) => r.status === 0).every((r) => r.clientClosed)).toBe(true);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(h.model.requests).toHaveLength(sent);
    expect(h.logs.some((l) => /abort/i.test(String(l.msg)))).toBe(true);
    // Stopped already: the harness must not stop it twice.
    h.bot = { stop: async () => undefined } as unknown as typeof h.bot;
  }, 20_000);
});
