import type { ChannelRef } from '../../src/memory/paths';
import { TYPING_BURST, TYPING_PER_SECOND } from '../../src/bot/intake/replies';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { BotHarness, startHarness } from '../helpers/botHarness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** "Typing" spends discord.js's REST budget (50 requests a second for the whole bot): it gives way to replies. */
describe('typing, budgeted', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let alice: FakeUser;
  const extra: FakeChannel[] = [];

  beforeEach(async () => {
    extra.length = 0;
    h = await startHarness({
      setup: (d) => {
        const b = d.setupBasic({ channelName: 'general' });
        guild = b.guild;
        general = b.channel;
        alice = b.user;
        for (let i = 0; i < 10; i++) extra.push(d.createTextChannel(guild.id, { name: `team-${i}` }));
      },
    });
  });
  afterEach(async () => {
    await h.close();
  });

  it('counts from the model request: a turn held up before the model with a quick answer shows none; a slow answer still shows it', async () => {
    const store = h.bot.runtime.store;
    const ref: ChannelRef = { kind: 'discord', guildId: guild.id, channelId: general.id };
    h.model.setHandler(() => 'Noted.');
    // A condensation writing this channel's memory holds its lock: the turn waits for it before asking the model.
    const held = store.exclusive(store.paths(ref), () => sleep(1_000));
    const q = h.discord.userSays(general.id, alice.id, 'remember that the deploy window is Friday', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q.id });
    await held;
    expect(h.discord.typingIn(general.id)).toHaveLength(0);

    // A quiet channel, a slow model: the indicator shows, once.
    h.model.setHandler(async () => {
      await sleep(1_000);
      return 'The window is Friday.';
    });
    const q2 = h.discord.userSays(general.id, alice.id, 'when is the deploy window?', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q2.id });
    expect(h.discord.typingIn(general.id)).toHaveLength(1);
  }, 20_000);

  it('gives way to replies: while several sends wait on a rate limit, a slow answer elsewhere shows no typing', async () => {
    const busy = extra.slice(0, 4);
    h.model.setHandler(async (req) => {
      if (req.lastUserText.includes('slow')) await sleep(1_000);
      return 'ok';
    });
    // Each of these replies meets a 429: discord.js holds it for 2.5 s and retries.
    for (const ch of busy) h.discord.rateLimitNext(`POST /channels/${ch.id}/messages`, 2.5);
    for (const ch of busy) h.discord.userSays(ch.id, alice.id, 'quick one', { mentionsBot: true });
    await h.discord.waitFor(() => (h.discord.requestsTo((r) => r.status === 429).length === busy.length ? true : undefined), 5_000, 'the held sends');
    const q = h.discord.userSays(general.id, alice.id, 'a slow question', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q.id });
    expect(h.discord.typingIn(general.id)).toHaveLength(0);
    // The held replies still arrive.
    for (const ch of busy) await h.discord.waitForBotMessage(ch.id, { timeoutMs: 8_000 });
  }, 20_000);

  it('is capped per process: ten slow answers at once make a few typing calls, not ten', async () => {
    h.model.setHandler(async () => {
      await sleep(1_000);
      return 'ok';
    });
    const asked = extra.map((ch) => ({ ch, q: h.discord.userSays(ch.id, alice.id, 'a slow question', { mentionsBot: true }) }));
    for (const { ch, q } of asked) await h.discord.waitForBotMessage(ch.id, { after: q.id, timeoutMs: 8_000 });
    const at = extra.flatMap((ch) => h.discord.typingIn(ch.id).map((t) => t.at)).sort((a, b) => a - b);
    expect(at.length).toBeGreaterThanOrEqual(1);
    // A token bucket: the burst at once, then at most TYPING_PER_SECOND more per second (one spare for rounding).
    expect(at.length).toBeLessThanOrEqual(TYPING_BURST + Math.ceil(((at[at.length - 1] - at[0]) / 1000) * TYPING_PER_SECOND) + 1);
    // Within the first half second, no more than the burst.
    expect(at.filter((t) => t - at[0] < 500).length).toBeLessThanOrEqual(TYPING_BURST);
  }, 20_000);
});
