import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_MODELS } from '../../src/llm/provider';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import type { FakeInteraction } from '../fakes/discord/interactions';
import { BotHarness, startHarness } from '../helpers/botHarness';

describe('/pack on Discord', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let orders: FakeChannel;
  let billing: FakeChannel;
  let alice: FakeUser;
  let mod: FakeUser;

  beforeEach(async () => {
    h = await startHarness({
      setup: (d) => {
        const b = d.setupBasic({ channelName: 'orders' });
        guild = b.guild;
        orders = b.channel;
        alice = b.user;
        const role = d.createRole(guild.id, { name: 'mods', permissions: ['ManageMessages'] });
        mod = d.addMember(guild.id, { username: 'mo', roles: [role.id] });
        billing = d.createTextChannel(guild.id, { name: 'billing' });
      },
    });
    h.model.setHandler(() => 'ok');
    await h.discord.waitFor(() => (h.discord.commandsIn(guild.id).length ? true : undefined), 5000, 'commands registered');
    h.seed(guild.id, orders.id, 'MEMORY.md', '# Channel Memory\n\n- [m-a1b2c3] The orders database moves to Postgres 16 in December [from: mo, 2026-11-20]\n');
  });
  afterEach(async () => {
    await h.close();
  });

  async function slash(channel: FakeChannel, user: FakeUser, command: string, options: Record<string, string | number> = {}): Promise<FakeInteraction> {
    const ix = h.discord.slashCommand(channel.id, user.id, command, options);
    await h.discord.waitForAnswer(ix);
    return ix;
  }
  const chatRequests = () => h.model.requests.filter((r) => r.model === DEFAULT_MODELS.anthropic.chat);
  async function ask(channel: FakeChannel, text: string): Promise<void> {
    const q = h.discord.userSays(channel.id, alice.id, text, { mentionsBot: true });
    await h.discord.waitForBotMessage(channel.id, { after: q.id });
  }

  it("an admin creates a package in one channel and activates it in another: its items ride in that channel's stable prompt part until deactivated; others only list and explain", async () => {
    const denied = await slash(orders, alice, 'pack create', { name: 'orders-db', query: 'orders database' });
    expect(denied.ephemeral).toBe(true);
    expect(denied.original!.content).toMatch(/Manage Messages/);
    expect(fs.existsSync(path.join(h.dataDir, guild.id, 'packages'))).toBe(false);

    const created = await slash(orders, mod, 'pack create', { name: 'orders-db', query: 'orders database', max_items: 3 });
    expect(created.ephemeral).toBe(false);
    expect(created.original!.content).toMatch(new RegExp(`^Created package orders-db from ${guild.id}/${orders.id}: 1 items`));
    expect(fs.existsSync(path.join(h.dataDir, guild.id, 'packages', 'orders-db.md'))).toBe(true);

    expect((await slash(billing, alice, 'pack activate', { name: 'orders-db' })).original!.content).toMatch(/Manage Messages/);
    const activated = await slash(billing, mod, 'pack activate', { name: 'orders-db' });
    expect(activated.original!.content).toMatch(/^Activated package orders-db here/);

    await ask(billing, 'when do invoices get generated?');
    const withPackage = chatRequests().at(-1)!;
    const system = withPackage.body.system as { text: string; cache_control?: unknown }[];
    const at = system.findIndex((b) => b.text.includes('<context_packages>'));
    expect(at).toBeGreaterThanOrEqual(0);
    expect(system[at].text).toContain(
      `[from: ${guild.id}/${orders.id}, MEMORY.md, m-a1b2c3, 2026-11-20]\n> The orders database moves to Postgres 16 in December`,
    );
    // In the stable part: at or before the last block marked for the cache.
    expect(system.slice(at).some((b) => b.cache_control)).toBe(true);

    const explained = await slash(billing, alice, 'pack explain', { name: 'orders-db' });
    expect(explained.ephemeral).toBe(true);
    expect(explained.original!.content).toContain(`Active in: ${guild.id}/${billing.id}`);
    const listed = await slash(billing, alice, 'pack list');
    expect(listed.ephemeral).toBe(true);
    expect(listed.original!.content).toMatch(/Active here: orders-db$/);
    const missing = await slash(billing, mod, 'pack activate', { name: 'nope' });
    expect(missing.original!.content).toMatch(/^Not done: no package "nope" in server \d+: \/pack list/);

    expect((await slash(billing, mod, 'pack deactivate', { name: 'orders-db' })).original!.content).toMatch(/^Deactivated package orders-db here/);
    await ask(billing, 'and the invoices?');
    expect(JSON.stringify(chatRequests().at(-1)!.body.system)).not.toContain('context_packages');
  });
});
