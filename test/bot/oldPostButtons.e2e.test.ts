import fs from 'node:fs';
import path from 'node:path';
import type { FakeChannel, FakeGuild, FakeMessage, FakeUser } from '../fakes/discord/state';
import { BotHarness, startCast } from '../helpers/botHarness';
import type { FakeRequest } from '../fakes/model/types';

/** A Secretary model: the decision after "we decide:" ('none' without one). */
function secretaryModel(req: FakeRequest): string {
  if (!/Secretary of a team/.test(req.system)) return 'ok';
  const decided = [...req.messages[0].text.matchAll(/we decide: (.*)$/gim)].pop()?.[1] ?? 'none';
  const json = { topic: 'Database', context: 'c', decision: decided, rationale: 'r', action_items: [], supersedes: [], constraints: [], current_state: '' };
  return JSON.stringify(json);
}

/**
 * Posts made before the buttons existed (issue 43 §1): the bot gives an old pinned condensation its
 * Confirm / Reopen / Supersede row by editing it, once, and skips a post that is gone.
 */
describe('buttons on condensations posted before they existed', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let alice: FakeUser;
  let bo: FakeUser;
  afterEach(async () => {
    await h.close();
  });

  const dir = () => path.join(h.dataDir, guild.id, general.id);
  const posts = () => h.discord.botMessagesIn(general.id).filter((m) => m.content.includes('📝 Condensation'));
  const decisions = () =>
    (JSON.parse(fs.readFileSync(path.join(dir(), '.minutes', 'context.json'), 'utf8')) as { decisions: { id: string; text: string; status?: string }[] })
      .decisions;
  const ledgerEntries = () =>
    Object.values(
      (
        JSON.parse(fs.readFileSync(path.join(dir(), '.minutes', 'ledger.json'), 'utf8')) as {
          entries: Record<string, { decisionId: string; postButtons?: string }>;
        }
      ).entries,
    );

  async function condensed(lines: string[]): Promise<FakeMessage> {
    const thread = h.discord.createThread(general.id, { name: 'which db', ownerId: alice.id });
    const first = h.discord.userSays(thread.id, alice.id, lines[0]);
    for (const l of lines.slice(1)) h.discord.userSays(thread.id, bo.id, l);
    const before = posts().length;
    h.discord.react(thread.id, first.id, alice.id, '📝');
    await h.discord.waitFor(() => (posts().length > before ? true : undefined), 8000, 'the post');
    const post = posts().at(-1)!;
    await h.discord.waitFor(() => (ledgerEntries().some((e) => e.postButtons === undefined) ? true : undefined), 5000, 'the ledger');
    return post;
  }

  it('an old pinned post gets its buttons once after a restart, and Confirm on it ratifies; a deleted post and a post without a decision are skipped', async () => {
    ({ h, guild, general, alice, bo } = await startCast('db'));
    h.model.setHandler(secretaryModel);
    const old = await condensed(['Postgres or MySQL?', 'we decide: the importer uses Postgres']);
    const gone = await condensed(['Redis or Memcached?', 'we decide: the cache is Redis']);
    const undecided = await condensed(['Tabs or spaces?', 'no idea']);
    await h.discord.waitFor(() => (decisions().length >= 2 ? true : undefined), 5000, 'context.json');
    await h.bot.stop();
    // As an older version left them: pinned, no components; one was deleted since.
    for (const m of [old, gone, undecided]) h.discord.message(m.id).components = [];
    h.discord.deleteMessage(gone.id);
    expect(h.discord.pinsIn(general.id).map((p) => p.message.id)).toContain(old.id);

    await h.launch();
    await h.discord.waitFor(() => (h.discord.buttonsOf(old.id).length ? true : undefined), 10_000, 'the buttons on the old post');
    const id = decisions().find((d) => d.text === 'the importer uses Postgres')!.id;
    expect(h.discord.buttonsOf(old.id).map((b) => b.label)).toEqual(['Confirm', 'Reopen', 'Supersede']);
    expect(h.discord.buttonsOf(old.id).every((b) => b.custom_id!.includes(id))).toBe(true);
    expect(h.discord.message(old.id).content).toBe(old.content);
    await h.discord.waitFor(() => (ledgerEntries().filter((e) => e.postButtons).length === 2 ? true : undefined), 10_000, 'both marked');
    const marks = Object.fromEntries(ledgerEntries().map((e) => [e.decisionId, e.postButtons]));
    expect(marks[id]).toBe('added');
    expect(Object.values(marks).sort()).toEqual(['added', 'gone', undefined]);
    expect(h.discord.buttonsOf(undecided.id)).toEqual([]);

    const button = h.discord.buttonsOf(old.id).find((b) => b.label === 'Confirm')!;
    const ix = h.discord.clickButton(old.id, bo.id, button.custom_id!);
    await h.discord.waitFor(() => (ix.answered ? true : undefined), 8000, 'the answer');
    expect(ix.texts).toEqual([`Confirmed: ${id} is ratified.`]);
    expect(decisions().find((d) => d.id === id)!.status).toBe('ratified');
    expect(fs.readFileSync(path.join(dir(), 'CONTEXT.md'), 'utf8')).toMatch(/the importer uses Postgres.*— ratified by bo/);

    // Once per post: a second restart edits nothing.
    const patches = () => h.discord.requestsTo('PATCH /channels/:channelId/messages/:messageId').length;
    const before = patches();
    await h.bot.stop();
    await h.launch();
    await new Promise((r) => setTimeout(r, 1500));
    expect(patches()).toBe(before);
    expect(h.discord.problems).toEqual([]);
  });
});
