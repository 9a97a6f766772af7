import fs from 'node:fs';
import path from 'node:path';
import type { FakeRequest } from '../fakes/model/types';
import { BotHarness, startHarness, twoPeople } from '../helpers/botHarness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function secretaryModel(req: FakeRequest): string {
  if (!/Secretary of a team/.test(req.system)) return 'ok';
  return JSON.stringify({
    topic: 'Staging resets',
    context: 'The team discussed staging.',
    decision: 'Staging is reset every Monday',
    rationale: 'Less drift.',
    action_items: [],
    supersedes: [],
    constraints: [],
    current_state: 'Agreed.',
  });
}

/** The Secretary's sweep of archived threads reads Discord only where an archive may have gone unreported, and off live traffic. */
describe('the archived-thread sweep', () => {
  let h: BotHarness;
  let ids: { guild: string; channel: string; alice: string; bo: string };
  const archiveReads = () => h.discord.requestsTo(/\/threads\/archived\//);
  /** The bot worked in the channel an hour ago, before this start. */
  const workedHereBefore = () => {
    const state = path.join(h.dataDir, ids.guild, ids.channel, '.minutes');
    fs.mkdirSync(state, { recursive: true });
    fs.writeFileSync(path.join(state, 'ledger.json'), JSON.stringify({ version: 1, firstRunAt: new Date(Date.now() - 3600_000).toISOString(), entries: {} }));
  };
  /** Discord drops the session; the client re-identifies (a new session: the events of the gap are lost). */
  const reidentify = async () => {
    const ready = new Promise<void>((resolve) => h.bot.client.once('shardReady', () => resolve()));
    h.discord.invalidateSessions();
    await h.discord.disconnect(4000);
    await ready;
  };

  afterEach(async () => {
    await h.close();
  });

  it('a first start in six channels reads no archives, at start or in the periodic sweep', async () => {
    h = await startHarness({
      setup: (d) => {
        ids = twoPeople(d, 'general');
        for (let i = 0; i < 5; i++) d.createTextChannel(ids.guild, { name: `team-${i}` });
      },
    });
    await h.discord.waitFor(
      () => (fs.existsSync(path.join(h.dataDir, ids.guild, '.minutes', 'first-seen.json')) ? true : undefined),
      5000,
      'first-seen record',
    );
    await h.bot.secretary.sweep();
    // Longer than the start-up sweep's wait for a quiet bot.
    await sleep(2_500);
    expect(archiveReads()).toHaveLength(0);
  }, 20_000);

  it('a channel the bot worked in before this start is read once (its thread archived while the bot was down is condensed), again after a new session', async () => {
    h = await startHarness({ launch: false, setup: (d) => (ids = twoPeople(d, 'infra')) });
    h.model.setHandler(secretaryModel);
    workedHereBefore();
    const t = h.discord.createThread(ids.channel, { name: 'staging', ownerId: ids.alice });
    for (let i = 0; i < 8; i++) h.discord.userSays(t.id, i % 2 ? ids.bo : ids.alice, `point ${i} about staging resets`);
    h.discord.archiveThread(t.id);

    await h.launch();
    const posts = () => h.discord.botMessagesIn(ids.channel).filter((m) => m.content.includes('📝 Condensation'));
    await h.discord.waitFor(() => (posts().length ? true : undefined), 10_000, 'the condensation of the thread archived while the bot was down');
    expect(archiveReads()).toHaveLength(2);

    // Nothing archived since can have gone unreported: the periodic sweep reads nothing.
    await h.bot.secretary.sweep();
    expect(archiveReads()).toHaveLength(2);

    await reidentify();
    await h.bot.secretary.sweep();
    expect(archiveReads()).toHaveLength(4);
    expect(posts()).toHaveLength(1);
  }, 30_000);

  it('waits while a turn is in flight, and reads once the bot has been quiet', async () => {
    h = await startHarness({ launch: false, setup: (d) => (ids = twoPeople(d, 'infra')) });
    workedHereBefore();
    await h.launch();
    await h.discord.waitFor(() => (archiveReads().length === 2 ? true : undefined), 10_000, 'the start-up sweep');
    await reidentify();

    h.model.setHandler(async () => {
      await sleep(1_500);
      return 'ok';
    });
    const q = h.discord.userSays(ids.channel, ids.alice, 'a slow question', { mentionsBot: true });
    await h.discord.waitFor(() => (h.model.requests.length ? true : undefined), 5_000, 'the model request');
    const sweeping = h.bot.secretary.sweep();
    await h.discord.waitForBotMessage(ids.channel, { after: q.id });
    await sweeping;
    const reads = archiveReads().slice(2);
    expect(reads).toHaveLength(2);
    const reply = h.discord.requestsTo('POST /channels/:channelId/messages').find((r) => r.path.includes(ids.channel))!;
    expect(Math.min(...reads.map((r) => r.at))).toBeGreaterThanOrEqual(reply.at + reply.durationMs);
  }, 30_000);

  it('a thread discord.js never had cached, archived while the bot runs (no threadUpdate), is read by the next periodic sweep and condensed', async () => {
    h = await startHarness({ setup: (d) => (ids = twoPeople(d, 'infra')) });
    h.model.setHandler(secretaryModel);
    await h.discord.waitFor(
      () => (fs.existsSync(path.join(h.dataDir, ids.guild, '.minutes', 'first-seen.json')) ? true : undefined),
      5000,
      'first-seen record',
    );
    // Made while the bot could not see the channel: it never heard of the thread.
    h.discord.setBotPermissions(ids.channel, { ViewChannel: false });
    const t = h.discord.createThread(ids.channel, { name: 'staging', ownerId: ids.alice });
    for (let i = 0; i < 8; i++) h.discord.userSays(t.id, i % 2 ? ids.bo : ids.alice, `point ${i} about staging resets`);
    h.discord.setBotPermissions(ids.channel, { ViewChannel: null });
    const seesChannel = () => {
      const ch = h.bot.client.channels.cache.get(ids.channel);
      return ch && !ch.isDMBased() && ch.permissionsFor(h.bot.client.user!)?.has('ViewChannel') ? true : undefined;
    };
    await h.discord.waitFor(seesChannel, 5000, 'the bot sees the channel again');
    h.discord.archiveThread(t.id);
    const posts = () => h.discord.botMessagesIn(ids.channel).filter((m) => m.content.includes('📝 Condensation'));
    await sleep(500);
    expect(posts()).toHaveLength(0);
    await h.bot.secretary.sweep();
    expect(archiveReads()).toHaveLength(2);
    await h.discord.waitFor(() => (posts().length ? true : undefined), 10_000, 'the condensation found by the sweep');
  }, 30_000);
});
