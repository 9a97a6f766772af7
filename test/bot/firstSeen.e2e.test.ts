import fs from 'node:fs';
import path from 'node:path';
import type { FakeRequest } from '../fakes/model/types';
import type { FakeChannel, FakeUser } from '../fakes/discord/state';
import { BotHarness, startHarness } from '../helpers/botHarness';

function secretaryModel(req: FakeRequest): string {
  if (!/Secretary of a team/.test(req.system)) return 'ok';
  const decided = [...req.messages[0].text.matchAll(/we decide: (.*)$/gim)].pop()?.[1] ?? 'none';
  return JSON.stringify({
    topic: 'Release cadence',
    context: 'The team discussed releases.',
    decision: decided,
    rationale: 'Less risk.',
    action_items: [],
    supersedes: [],
    constraints: [],
    current_state: 'Agreed.',
  });
}

describe('automatic condensation in a channel where the bot never answered', () => {
  let h: BotHarness;
  let guildId: string;
  let quiet: FakeChannel;
  let alice: FakeUser;
  let bo: FakeUser;

  beforeEach(async () => {
    h = await startHarness({
      setup: (d) => {
        const b = d.setupBasic({ channelName: 'quiet' });
        guildId = b.guild.id;
        quiet = b.channel;
        alice = b.user;
        bo = d.addMember(b.guild.id, { username: 'bo' });
      },
    });
    h.model.setHandler(secretaryModel);
  });
  afterEach(async () => {
    await h.close();
  });

  it('a thread of 8 messages from 2 people, archived while the bot runs, is condensed', async () => {
    // Start-up records when the bot first saw the server, before anyone speaks to it.
    await h.discord.waitFor(() => (fs.existsSync(path.join(h.dataDir, guildId, '.minutes', 'first-seen.json')) ? true : undefined), 5000, 'first-seen record');
    const t = h.discord.createThread(quiet.id, { name: 'cadence', ownerId: alice.id });
    const people = [alice, bo];
    for (let i = 0; i < 7; i++) h.discord.userSays(t.id, people[i % 2].id, `point ${i + 1} about the release cadence`);
    h.discord.userSays(t.id, bo.id, 'we decide: releases ship every second Tuesday');
    h.discord.archiveThread(t.id);
    await h.discord.waitFor(
      () => (h.discord.botMessagesIn(quiet.id).some((m) => m.content.includes('every second Tuesday')) ? true : undefined),
      8000,
      'automatic condensation',
    );
    // Filed after it is posted.
    const filed = path.join(h.dataDir, guildId, quiet.id, 'condensations');
    await h.discord.waitFor(() => (fs.existsSync(filed) && fs.readdirSync(filed).length ? true : undefined), 5000, 'condensation file');
    expect(fs.readdirSync(filed)).toHaveLength(1);
    // Nobody mentioned the bot, so it never answered in the channel.
    expect(h.discord.botMessagesIn(quiet.id).filter((m) => !m.content.includes('📝 Condensation'))).toHaveLength(0);
  }, 20_000);

  it('only in the channels the allowlists let the bot work in', async () => {
    await h.close();
    const config = { limits: { maxRetries: 2, requestsPerMinute: 0 }, discord: { channels: [] as string[] } };
    let other!: FakeChannel;
    h = await startHarness({
      config,
      setup: (d) => {
        const b = d.setupBasic({ channelName: 'allowed' });
        guildId = b.guild.id;
        quiet = b.channel;
        alice = b.user;
        bo = d.addMember(b.guild.id, { username: 'bo' });
        other = d.createTextChannel(b.guild.id, { name: 'other' });
        config.discord.channels.push(quiet.id);
      },
    });
    h.model.setHandler(secretaryModel);
    await h.discord.waitFor(() => (fs.existsSync(path.join(h.dataDir, guildId, '.minutes', 'first-seen.json')) ? true : undefined), 5000, 'first-seen record');
    const people = [alice, bo];
    for (const [ch, what] of [
      [other, 'the other channel'],
      [quiet, 'the allowed channel'],
    ] as const) {
      const t = h.discord.createThread(ch.id, { name: what, ownerId: alice.id });
      for (let i = 0; i < 7; i++) h.discord.userSays(t.id, people[i % 2].id, `point ${i + 1} about ${what}`);
      h.discord.userSays(t.id, bo.id, `we decide: ${what} ships every second Tuesday`);
      h.discord.archiveThread(t.id);
    }
    await h.discord.waitFor(
      () => (h.discord.botMessagesIn(quiet.id).some((m) => m.content.includes('the allowed channel ships')) ? true : undefined),
      8000,
      'automatic condensation in the allowed channel',
    );
    expect(h.discord.botMessagesIn(other.id)).toHaveLength(0);
    expect(fs.existsSync(path.join(h.dataDir, guildId, other.id))).toBe(false);
  }, 30_000);
});
