import fs from 'node:fs';
import path from 'node:path';
import type { FakeRequest } from '../fakes/model/types';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { BotHarness, startCast } from '../helpers/botHarness';

/** A Secretary model: the decision after "we decide:", the items after "todo:", a replacement when said. */
function secretaryModel(req: FakeRequest): string {
  if (!/Secretary of a team/.test(req.system)) return 'ok';
  const input = req.messages[0].text;
  const decided = [...input.matchAll(/we decide: (.*)$/gim)].pop()?.[1] ?? 'none';
  const todos = [...input.matchAll(/todo: (.*)$/gim)].map((m) => m[1]);
  const current = [...input.matchAll(/^- (d-[0-9a-f]+) /gm)].map((m) => m[1]);
  return JSON.stringify({
    topic: `Decision on ${decided.split(' ').slice(0, 2).join(' ')}`,
    context: 'c',
    decision: decided,
    rationale: 'r',
    action_items: todos,
    supersedes: /replaces the earlier decision/i.test(input) ? current : [],
    constraints: [],
    current_state: 's',
  });
}

describe('action items tracked from condensations', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let alice: FakeUser;
  let bo: FakeUser;

  beforeEach(async () => {
    ({ h, guild, general, alice, bo } = await startCast('release'));
    h.model.setHandler(secretaryModel);
    const q = h.discord.userSays(general.id, alice.id, 'hello', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q.id });
  });
  afterEach(async () => {
    await h.close();
  });

  const read = (f: string) => fs.readFileSync(path.join(h.dataDir, guild.id, general.id, f), 'utf8');
  async function condense(name: string, lines: [FakeUser, string][]): Promise<void> {
    const thread = h.discord.createThread(general.id, { name, ownerId: alice.id });
    const ids = lines.map(([u, t]) => h.discord.userSays(thread.id, u.id, t).id);
    const before = h.discord.botMessagesIn(general.id).filter((m) => m.content.includes('📝 Condensation')).length;
    h.discord.react(thread.id, ids[0], alice.id, '📝');
    await h.discord.waitFor(
      () => (h.discord.botMessagesIn(general.id).filter((m) => m.content.includes('📝 Condensation')).length > before ? true : undefined),
      8000,
      'the post',
    );
    await h.discord.waitFor(
      () => (fs.existsSync(path.join(h.dataDir, guild.id, general.id, '.minutes', 'context.json')) ? true : undefined),
      5000,
      'context.json',
    );
  }
  async function slash(userId: string, options: Record<string, string> = {}): Promise<string> {
    const ix = h.discord.slashCommand(general.id, userId, 'actions', options);
    await h.discord.waitForAnswer(ix);
    expect(ix.original!.flags & 64).toBe(64);
    return ix.original!.content;
  }

  it('an item from a condensation is in CONTEXT.md, MEMORY.md and /actions, and leaves them when its owner closes it', async () => {
    await condense('db', [
      [alice, 'Postgres?'],
      [bo, 'we decide: the importer uses Postgres'],
      [bo, 'todo: bo: write the migration by Friday'],
    ]);
    await h.discord.waitFor(
      () => (/## Open Action Items\n\n- `a-[0-9a-f]{6}` write the migration by Friday — bo, due \d{4}-\d{2}-\d{2}/.test(read('CONTEXT.md')) ? true : undefined),
      5000,
      'CONTEXT.md',
    );
    const id = /`(a-[0-9a-f]{6})`/.exec(read('CONTEXT.md'))![1];
    await h.discord.waitFor(() => (read('MEMORY.md').includes(`Action item ${id} (`) ? true : undefined), 5000, 'MEMORY.md open loop');
    expect(await slash(alice.id)).toContain(`\`${id}\` write the migration by Friday — bo`);

    expect(await slash(alice.id, { done: id })).toBe(`Nothing closed: only bo (its owner) or an admin can close ${id}.`);
    // A member who takes the owner's name is still not the owner: ownership is the account's.
    const impostor = h.discord.addMember(guild.id, { username: 'mallory', nick: 'bo' });
    expect(await slash(impostor.id, { done: id })).toBe(`Nothing closed: only bo (its owner) or an admin can close ${id}.`);
    expect(JSON.parse(read('.minutes/context.json')).actions[0]).toMatchObject({ id, owner: 'bo', ownerId: bo.id, status: 'open' });
    expect(await slash(bo.id, { done: id })).toBe(`Closed ${id}: write the migration by Friday`);
    expect(read('CONTEXT.md')).not.toContain(id);
    expect(read('CONTEXT.md')).toContain('## Open Action Items\n\n_None open._');
    expect(read('MEMORY.md')).toMatch(new RegExp(`Action item ${id} done \\(\\d{4}-\\d{2}-\\d{2}, bo\\): write the migration by Friday`));
    expect(read('MEMORY.md')).toMatch(new RegExp(`~~\\[m-[0-9a-f]+\\] Action item ${id} \\(`));
    expect(await slash(alice.id)).toBe('No open action items in this channel.');
  });

  it("an item filed without its owner's account (older data, or a name nobody in the discussion had) is an admin's to close", async () => {
    const ctx = path.join(h.dataDir, guild.id, general.id, '.minutes', 'context.json');
    fs.mkdirSync(path.dirname(ctx), { recursive: true });
    const item = { id: 'a-0ld0ld', text: 'rotate the keys', owner: 'bo', decisionId: 'd-1', opened: '2026-01-02', status: 'open' };
    fs.writeFileSync(ctx, JSON.stringify({ version: 1, decisions: [], constraints: [], actions: [item] }));
    expect(await slash(bo.id, { done: 'a-0ld0ld' })).toBe(
      'Nothing closed: only an admin can close a-0ld0ld (bo is named as its owner, but not by a Discord account).',
    );
    expect(JSON.parse(read('.minutes/context.json')).actions[0].status).toBe('open');
  });

  it('a condensation that replaces the decision closes its open items and says which', async () => {
    await condense('first', [
      [alice, 'which db'],
      [bo, 'we decide: the importer uses MySQL'],
      [bo, 'todo: al: tune MySQL buffers'],
    ]);
    const thread = h.discord.createThread(general.id, { name: 'second', ownerId: alice.id });
    const ids = [
      h.discord.userSays(thread.id, alice.id, 'MySQL hurts.').id,
      h.discord.userSays(thread.id, bo.id, 'This replaces the earlier decision. we decide: the importer uses Postgres').id,
    ];
    h.discord.react(thread.id, ids[0], alice.id, '📝');
    const notice = await h.discord.waitForBotMessage(thread.id, { match: (m) => m.content.startsWith('Closed the open action items'), timeoutMs: 8000 });
    expect(notice.content).toMatch(/^Closed the open action items of the replaced decision: a-[0-9a-f]{6} \(tune MySQL buffers\)\.$/);
    expect(h.discord.pingsNobody(notice)).toBe(true);
    expect(read('CONTEXT.md')).not.toContain('tune MySQL buffers');
    expect(await slash(alice.id)).toBe('No open action items in this channel.');
  });
});
