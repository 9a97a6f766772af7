import fs from 'node:fs';
import path from 'node:path';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { fakeErrors } from '../fakes/model/errors';
import { BotHarness, startHarness } from '../helpers/botHarness';

/** What the channel is told when "remember that …" meets a failing model or an unwritable MEMORY.md. */
describe('a memory request is answered honestly whatever else fails', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let alice: FakeUser;
  const memoryFile = () => path.join(h.dataDir, guild.id, general.id, 'MEMORY.md');

  beforeEach(async () => {
    h = await startHarness({
      config: { limits: { maxRetries: 0, requestsPerMinute: 0 } },
      setup: (d) => {
        const b = d.setupBasic({ channelName: 'general' });
        guild = b.guild;
        general = b.channel;
        alice = b.user;
      },
    });
  });
  afterEach(async () => {
    await h.close();
  });

  it('the model call fails after the entry was saved: the reply gives the error and says it was saved', async () => {
    h.model.setHandler(() => fakeErrors.serverError());
    const q = h.discord.userSays(general.id, alice.id, 'remember that the cache TTL is 7 days', { mentionsBot: true });
    const reply = await h.discord.waitForBotMessage(general.id, { after: q.id });
    expect(reply.content).toMatch(/^The model provider is unavailable or overloaded right now; please try again in a minute\. /);
    expect(reply.content).toMatch(/\(Saved to memory as m-[0-9a-f]{6}: "the cache TTL is 7 days"\.\)$/);
    expect(fs.readFileSync(memoryFile(), 'utf8')).toMatch(/^- \[m-[0-9a-f]{6}\] the cache TTL is 7 days \[from: /m);
  });

  it('MEMORY.md is not valid UTF-8: the reply says so in one line someone can act on, and the file is untouched', async () => {
    const broken = Buffer.concat([
      Buffer.from('# Channel Memory\n\n- [m-aaaaaa] caf'),
      Buffer.from([0xe9]),
      Buffer.from(' opens at 8 [from: bo, 2026-11-01]\n'),
    ]);
    h.seed(guild.id, general.id, 'MEMORY.md', '');
    fs.writeFileSync(memoryFile(), broken);
    h.model.setHandler(() => 'Noted.');
    const q = h.discord.userSays(general.id, alice.id, 'remember that the cache TTL is 7 days', { mentionsBot: true });
    const reply = await h.discord.waitForBotMessage(general.id, { after: q.id });
    expect(reply.content).toBe(
      'Noted.\n\n_(Memory not changed: MEMORY.md is not valid UTF-8, so Minutes will not rewrite it. Re-save MEMORY.md as UTF-8 (any editor\'s "save with encoding"), then ask again.)_',
    );
    expect(reply.content).not.toMatch(/see the log/);
    expect(fs.readFileSync(memoryFile()).equals(broken)).toBe(true);
  });
});
