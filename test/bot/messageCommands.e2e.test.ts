import fs from 'node:fs';
import path from 'node:path';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { BotHarness, startCast } from '../helpers/botHarness';

/** "Record as decision" and "Remember this" on any message (issue 43 §2), through the real client against the fake Discord. */
describe('message commands', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let alice: FakeUser;
  let bo: FakeUser;

  beforeEach(async () => {
    ({ h, guild, general, alice, bo } = await startCast('db'));
    await h.discord.waitFor(() => (h.discord.commandsIn(guild.id).length ? true : undefined), 5000, 'commands registered');
  });
  afterEach(async () => {
    await h.close();
  });

  const file = (...p: string[]) => path.join(h.dataDir, guild.id, general.id, ...p);
  const read = (...p: string[]) => (fs.existsSync(file(...p)) ? fs.readFileSync(file(...p), 'utf8') : '');

  it('are registered as message commands (type 3) under their exact names, visible to members', () => {
    const registered = h.discord.commandsIn(guild.id).filter((c) => c.raw.type === 3);
    expect(registered.map((c) => [c.name, c.raw.default_member_permissions ?? null]).sort()).toEqual([
      ['Record as decision', null],
      ['Remember this', null],
    ]);
  });

  it('Record as decision: a form prefilled with the whole message; the decision is posted, pinned, in CONTEXT.md, resting on that message', async () => {
    const text = 'Decided: the importer uses Postgres 16.\nMySQL is out because of JSON support.';
    const msg = h.discord.userSays(general.id, bo.id, text);
    const ix = h.discord.runMessageCommand('Record as decision', msg.id, alice.id, general.id);
    await h.discord.waitFor(() => (ix.modal ? true : undefined), 5000, 'the form');
    expect(ix.ackDelayMs!).toBeLessThan(3000);
    expect(ix.modal!.inputs.find((i) => i.custom_id === 'decision')!.value).toBe(text);
    const sent = h.discord.submitModal(ix, alice.id, {});
    await h.discord.waitForAnswer(sent, 10_000);
    expect(sent.ephemeral).toBe(true);
    const link = `https://discord.com/channels/${guild.id}/${general.id}/${msg.id}`;
    expect(sent.texts[0]).toMatch(new RegExp(`^Recorded d-[0-9a-f]{10} from ${link}: https://discord.com/channels/`));
    const post = h.discord.botMessagesIn(general.id).find((m) => m.content.includes('📝 Condensation'))!;
    expect(post.content).toContain('the importer uses Postgres 16');
    expect(h.discord.pinsIn(general.id).map((p) => p.message.id)).toContain(post.id);
    expect(h.discord.buttonsOf(post.id).map((b) => b.label)).toEqual(['Confirm', 'Reopen', 'Supersede']);
    expect(read('CONTEXT.md')).toMatch(/the importer uses Postgres 16.*— proposed/);
    // Provenance: the condensation file CONTEXT.md links to names the message, by id and by link.
    const ctx = JSON.parse(read('.minutes', 'context.json')) as { decisions: { file: string; text: string }[] };
    const cond = read('condensations', ctx.decisions[0].file);
    expect(cond).toContain(msg.id);
    expect(cond).toContain(link);
    expect(h.discord.problems).toEqual([]);
  });

  it('Remember this: a memory entry whose provenance is the message; a secret is refused as today', async () => {
    const msg = h.discord.userSays(general.id, bo.id, 'The staging database is reset every Monday at 06:00 UTC.');
    const ix = h.discord.runMessageCommand('Remember this', msg.id, alice.id, general.id);
    await h.discord.waitForAnswer(ix);
    expect(ix.ackDelayMs!).toBeLessThan(3000);
    expect(ix.ephemeral).toBe(true);
    expect(ix.texts[0]).toMatch(/^Saved to memory as m-[0-9a-z]+: "The staging database is reset every Monday at 06:00 UTC\."\.$/);
    expect(read('MEMORY.md')).toMatch(new RegExp(`The staging database is reset every Monday at 06:00 UTC\\..*bo, user ${bo.id}, msg ${msg.id}`));

    const secret = h.discord.userSays(general.id, bo.id, 'the deploy key is ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    const refused = h.discord.runMessageCommand('Remember this', secret.id, alice.id, general.id);
    await h.discord.waitForAnswer(refused);
    expect(refused.texts[0]).toMatch(/^Not saved to memory: it looks like it contains a password, key or private URL/);
    expect(read('MEMORY.md')).not.toContain('ghp_');
  });
});
