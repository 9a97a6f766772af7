import type { FakeRequest } from '../fakes/model/types';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { BotHarness, startHarness } from '../helpers/botHarness';

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
  let alice: FakeUser;
  let bo: FakeUser;

  async function start(config?: unknown): Promise<void> {
    h = await startHarness({
      config,
      setup: (d) => {
        const b = d.setupBasic({ channelName: 'dev' });
        guild = b.guild;
        general = b.channel;
        alice = b.user;
        bo = d.addMember(guild.id, { username: 'bo' });
      },
    });
    h.model.setHandler(model);
  }
  afterEach(async () => {
    await h.close();
  });

  const say = (ch: FakeChannel, lines: string[], people: FakeUser[]) => lines.map((l, i) => h.discord.userSays(ch.id, people[i % people.length].id, l));
  const settle = () => new Promise((r) => setTimeout(r, 400));
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
    say(thread, ['One more thing: backups.', 'Nightly is fine.', 'Sure.', 'OK.', 'Then it is settled.', 'Agreed, ship it.'], [alice, bo]);
    await settle();
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
    await settle();
    expect(calls()).toBe(0);
    expect(h.discord.botMessagesIn(general.id)).toHaveLength(0);
  });

  it('nothing is asked where the bot may not post, or when the config turns offers off', async () => {
    await start({ limits: { maxRetries: 2, requestsPerMinute: 0 }, discord: { offerCondense: false } });
    say(general, AGREED, [alice, bo]);
    await settle();
    expect(calls()).toBe(0);
    await h.close();
    await start();
    h.discord.setBotPermissions(general.id, { SendMessages: false });
    say(general, AGREED, [alice, bo]);
    await settle();
    expect(calls()).toBe(0);
  });
});
