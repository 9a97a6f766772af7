import fs from 'node:fs';
import path from 'node:path';
import type { RunningBot } from '../../src/bot/start/start';
import type { FakeRequest } from '../fakes/model/types';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { BotHarness, startWithControlChannel } from '../helpers/botHarness';

/**
 * Decisions noticed: a discussion that ends on agreement gets one offer to condense it, after one
 * small model call; short, one-person or ordinary discussions cost no call at all.
 */
const isNotice = (r: { system: string }) => /whether the people in it reached a decision/.test(r.system);
function model(req: FakeRequest): string {
  if (isNotice(req)) return JSON.stringify({ decided: true, decision: 'The importer uses Postgres, <@123> approves' });
  return 'ok';
}
const AGREED = [
  'Postgres or SQLite for the importer?',
  'SQLite is simpler to ship.',
  'But we need concurrent writers.',
  'True, Postgres handles that.',
  'And ops already runs Postgres.',
  "Agreed, let's go with Postgres.",
];

describe('the Secretary notices decisions nobody condensed', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let control: FakeChannel;
  let alice: FakeUser;
  let bo: FakeUser;

  async function start(config?: unknown): Promise<void> {
    ({ h, guild, general, control, alice, bo } = await startWithControlChannel('dev', config));
    h.model.setHandler(model);
  }
  afterEach(async () => {
    await h.close();
  });

  const say = (ch: FakeChannel, lines: string[], people: FakeUser[]) => lines.map((l, i) => h.discord.userSays(ch.id, people[i % people.length].id, l));
  /**
   * Everything said so far was taken in, and every judgement it started has finished: a mention in
   * another channel is answered (the gateway delivers events in order, and a message reaches the
   * noticer before anything is awaited), then the bot stops, which waits for the noticer's work.
   */
  const processed = async () => {
    const q = h.discord.userSays(control.id, alice.id, 'are you there?', { mentionsBot: true });
    await h.discord.waitForBotMessage(control.id, { after: q.id });
    await h.bot.stop();
    h.bot = undefined as unknown as RunningBot;
  };
  const calls = () => h.model.requests.filter(isNotice).length;

  it('a thread that ends on agreement gets one offer (no ping), and never a second one', async () => {
    await start();
    const thread = h.discord.createThread(general.id, { name: 'db choice', ownerId: alice.id });
    say(thread, AGREED, [alice, bo]);
    const offer = await h.discord.waitForBotMessage(thread.id, { timeoutMs: 5000 });
    expect(offer.content).toBe(
      "📝 This looks decided: “The importer uses Postgres, approves”. To file it in the channel's decision log, react 📝 here or run /condense (/resolve also archives the thread).",
    );
    expect(h.discord.pingsNobody(offer)).toBe(true);
    expect(calls()).toBe(1);
    // The judgement is over once the offer is on record; until then the thread counts as busy.
    const noticed = path.join(h.bot.runtime.store.paths({ kind: 'discord', guildId: guild.id, channelId: general.id }).channelStateDir, 'noticed.json');
    await h.discord.waitFor(
      () => (fs.existsSync(noticed) && /"offered":\s*true/.test(fs.readFileSync(noticed, 'utf8')) ? true : undefined),
      5000,
      'the offer on record',
    );
    say(thread, ['One more thing: backups.', 'Nightly is fine.', 'Sure.', 'OK.', 'Then it is settled.', 'Agreed, ship it.'], [alice, bo]);
    await processed();
    expect(calls()).toBe(1);
    expect(h.discord.botMessagesIn(thread.id)).toHaveLength(1);
  });

  it('short, one-person or ordinary discussions cost no model call', async () => {
    await start();
    say(general, AGREED.slice(2), [alice, bo]);
    const solo = h.discord.createThread(general.id, { name: 'solo', ownerId: alice.id });
    say(solo, AGREED, [alice]);
    const chat = h.discord.createThread(general.id, { name: 'chat', ownerId: alice.id });
    say(chat, ['morning', 'hi!', 'coffee?', 'yes please', 'the rain again', 'see you at lunch', 'lol'], [alice, bo]);
    await processed();
    expect(calls()).toBe(0);
    expect(h.discord.botMessagesIn(general.id)).toHaveLength(0);
  });

  it('nothing is asked where the bot may not post, or when the config turns offers off', async () => {
    await start({ limits: { maxRetries: 2, requestsPerMinute: 0 }, discord: { offerCondense: false } });
    say(general, AGREED, [alice, bo]);
    await processed();
    expect(calls()).toBe(0);
    await h.close();
    await start();
    h.discord.setBotPermissions(general.id, { SendMessages: false });
    say(general, AGREED, [alice, bo]);
    await processed();
    expect(calls()).toBe(0);
  });
});
