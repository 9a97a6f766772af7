import fs from 'node:fs';
import path from 'node:path';
import { GuildChannel, GuildMember } from 'discord.js';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { BotHarness, startWithModerator } from '../helpers/botHarness';

/**
 * The bot's intake on the gateway's thread, against the fake Discord: every message a person says
 * where the bot works passes through it, so it works out a permission (computed from every role and
 * overwrite) only where one decides something: who may make the bot forget, for a message that asks
 * it; whether the bot may post, for a reply (and for a drift note about to be judged).
 */
describe('the intake', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let alice: FakeUser;
  let mod: FakeUser;

  beforeEach(async () => {
    ({ h, guild, general, alice, mod } = await startWithModerator('general'));
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await h.close();
  });

  const memory = () => fs.readFileSync(path.join(h.dataDir, guild.id, general.id, 'MEMORY.md'), 'utf8');
  async function ask(userId: string, content: string): Promise<string> {
    const said = h.discord.userSays(general.id, userId, content, { mentionsBot: true });
    return (await h.discord.waitForBotMessage(general.id, { after: said.id, timeoutMs: 8000 })).content;
  }

  it('plain chat costs no permission: only the reply checks that the bot may post', async () => {
    expect(await ask(alice.id, 'hello there')).toBeTruthy();
    const memberPermissions = jest.spyOn(GuildMember.prototype, 'permissions', 'get');
    const channelPermissions = jest.spyOn(GuildChannel.prototype, 'permissionsFor');
    for (let i = 0; i < 20; i++) h.discord.userSays(general.id, alice.id, `we could ship the exporter on day ${i}`);
    await ask(alice.id, 'what do you think?');
    expect(memberPermissions).not.toHaveBeenCalled();
    // The reply's own check (replies.ts), once for the turn that took all 21 messages.
    expect(channelPermissions).toHaveBeenCalledTimes(1);
  });

  it('only an admin makes the bot forget, judged on the message that asks, or on the edit that makes it ask', async () => {
    h.seed(
      guild.id,
      general.id,
      'MEMORY.md',
      '- [m-aaaaaa] The exporter ships on Fridays [from: a, 2026-11-01]\n- [m-bbbbbb] The importer runs on the old cluster [from: a, 2026-11-01]\n',
    );
    expect(await ask(alice.id, 'forget the exporter ships on Fridays')).toContain('Only admins and the person who said it can make me forget m-aaaaaa');
    expect(memory()).toContain('m-aaaaaa');
    expect(await ask(mod.id, 'forget the exporter ships on Fridays')).toContain('(Forgot m-aaaaaa');
    expect(memory()).not.toContain('m-aaaaaa');

    // A moderator's plain message, edited into a request while it waits behind another turn.
    h.model.setHandler((() => ({ text: 'Noted.', delayMs: 800 })) as unknown as Parameters<typeof h.model.setHandler>[0]);
    h.discord.userSays(general.id, alice.id, 'first, a question', { mentionsBot: true });
    const plain = h.discord.userSays(general.id, mod.id, 'the importer is fine', { mentionsBot: true });
    h.discord.editMessage(plain.id, 'forget the importer runs on the old cluster');
    const reply = await h.discord.waitForBotMessage(general.id, { after: plain.id, match: (m) => /Forgot|Only admins/.test(m.content), timeoutMs: 8000 });
    expect(reply.content).toContain('(Forgot m-bbbbbb');
    expect(memory()).not.toContain('m-bbbbbb');
  });
});
