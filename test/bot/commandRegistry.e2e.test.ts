import { PermissionFlagsBits } from 'discord.js';
import { HELP } from '../../src/cli/consoleCommands';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { BotHarness, startHarness } from '../helpers/botHarness';

/**
 * One command registry for Discord and the console (issue 42): a command only an admin may run is
 * registered with default_member_permissions, so members do not see it; the commands members use
 * carry none; and both transports offer the same commands.
 */
describe('the command registry on Discord', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let alice: FakeUser;
  let mod: FakeUser;

  beforeAll(async () => {
    h = await startHarness({
      setup: (d) => {
        ({ guild, channel: general, user: alice } = d.setupBasic({ channelName: 'general' }));
        const role = d.createRole(guild.id, { name: 'mods', permissions: ['ManageMessages'] });
        mod = d.addMember(guild.id, { username: 'mo', roles: [role.id] });
      },
    });
    await h.discord.waitFor(() => (h.discord.commandsIn(guild.id).length ? true : undefined), 5000, 'commands registered');
  });
  afterAll(async () => {
    await h.close();
  });

  // Slash commands (type 1); the message commands (type 3) have no console form: messageCommands.e2e.test.ts.
  const registered = () =>
    Object.fromEntries(
      h.discord
        .commandsIn(guild.id)
        .filter((c) => (c.raw.type ?? 1) === 1)
        .map((c) => [c.name, c.raw.default_member_permissions ?? null]),
    );

  it('registers /new with default_member_permissions (Manage Messages) and every member command without', () => {
    const perms = registered();
    expect(perms.new).toBe(PermissionFlagsBits.ManageMessages.toString());
    const members = [
      'recall',
      'context',
      'status',
      'condense',
      'resolve',
      'condensations',
      'actions',
      'questions',
      'playbooks',
      'thread',
      'memory',
      'pack',
      'decisions',
      'catchup',
    ];
    for (const name of members) expect([name, perms[name]]).toEqual([name, null]);
    expect(Object.keys(perms).sort()).toEqual([...members, 'new'].sort());
  });

  it("a member's /new is still refused in code (a server may grant the command to anyone); a moderator's runs", async () => {
    const denied = h.discord.slashCommand(general.id, alice.id, 'new');
    await h.discord.waitForAnswer(denied);
    expect(denied.original!.content).toBe('Only members with the Manage Messages permission can do that.');
    expect(denied.ephemeral).toBe(true);
    const allowed = h.discord.slashCommand(general.id, mod.id, 'new');
    await h.discord.waitForAnswer(allowed);
    expect(allowed.original!.content).toMatch(/conversation/);
  });

  it('the console offers the same commands as Discord registers (its /help names each)', () => {
    const onConsole = [...HELP.matchAll(/^ {2}\/([a-z]+)/gm)].map((m) => m[1]).filter((n) => n !== 'help');
    expect([...new Set(onConsole)].sort()).toEqual(Object.keys(registered()).sort());
  });
});
