import fs from 'node:fs';
import path from 'node:path';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { BotHarness, startWithModerator } from '../helpers/botHarness';

/**
 * Who may make the bot forget, on Discord: admins, and the person whose words the entry holds (the
 * entry records their user id when they asked the bot to remember it). Another member cannot, even
 * one who takes the author's display name; by chat ("forget …") and by `/memory forget` alike.
 */
describe('forgetting on Discord', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let alice: FakeUser;
  let bo: FakeUser;
  let mod: FakeUser;

  beforeEach(async () => {
    ({ h, guild, general, alice, bo, mod } = await startWithModerator('general'));
  });
  afterEach(async () => {
    await h.close();
  });

  const memory = () => fs.readFileSync(path.join(h.dataDir, guild.id, general.id, 'MEMORY.md'), 'utf8');
  async function ask(userId: string, content: string): Promise<string> {
    const said = h.discord.userSays(general.id, userId, content, { mentionsBot: true });
    return (await h.discord.waitForBotMessage(general.id, { after: said.id, timeoutMs: 8000 })).content;
  }
  async function slash(userId: string, id: string): Promise<string> {
    const ix = h.discord.slashCommand(general.id, userId, 'memory forget', { id });
    await h.discord.waitForAnswer(ix);
    return ix.original!.content;
  }
  const idOf = (fact: string) => new RegExp(`\\[(m-[0-9a-f]+)\\] ${fact}`).exec(memory())![1]!;

  it('by chat: the author can, another member (even under the author’s name) cannot, an admin can', async () => {
    expect(await ask(alice.id, 'remember that the staging VPN needs a hardware key')).toContain('(Saved to memory as');
    expect(memory()).toMatch(new RegExp(`the staging VPN needs a hardware key \\[from: [^\\]]*user ${alice.id}, msg \\d+, `));
    await ask(alice.id, 'remember that the exporter ships on Fridays');
    const vpn = idOf('the staging VPN needs a hardware key');
    const exporter = idOf('the exporter ships on Fridays');

    expect(await ask(bo.id, 'forget the staging VPN needs a hardware key')).toContain(`Only admins and the person who said it can make me forget ${vpn}`);
    const impostor = h.discord.addMember(guild.id, { username: 'mallory', nick: 'alice' });
    expect(await ask(impostor.id, 'forget the staging VPN needs a hardware key')).toContain('can make me forget');
    expect(memory()).toContain(vpn);

    expect(await ask(alice.id, 'forget the staging VPN needs a hardware key')).toContain(`(Forgot ${vpn}`);
    expect(await ask(mod.id, 'forget the exporter ships on Fridays')).toContain(`(Forgot ${exporter}`);
    expect(memory()).not.toMatch(new RegExp(`${vpn}|${exporter}`));
  });

  it('by /memory forget: the same rule', async () => {
    await ask(alice.id, 'remember that the staging VPN needs a hardware key');
    await ask(bo.id, 'remember that the exporter ships on Fridays');
    const vpn = idOf('the staging VPN needs a hardware key');
    const exporter = idOf('the exporter ships on Fridays');

    expect(await slash(bo.id, vpn)).toBe(`Nothing forgotten: Only admins and the person who said it can make me forget ${vpn}.`);
    expect(memory()).toContain(vpn);
    expect(await slash(alice.id, vpn)).toMatch(new RegExp(`^Forgot ${vpn}: "the staging VPN needs a hardware key"`));
    expect(await slash(mod.id, exporter)).toMatch(new RegExp(`^Forgot ${exporter}`));
    expect(memory()).not.toMatch(new RegExp(`${vpn}|${exporter}`));
  });
});
