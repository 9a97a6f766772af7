import fs from 'node:fs';
import path from 'node:path';
import type { FakeRequest } from '../fakes/model/types';
import type { FakeInteraction } from '../fakes/discord/interactions';
import type { FakeChannel, FakeGuild, FakeMessage, FakeUser } from '../fakes/discord/state';
import { BotHarness, startCast } from '../helpers/botHarness';

/** A Secretary model: the decision after "we decide:". */
export function secretaryModel(req: FakeRequest): string {
  if (!/Secretary of a team/.test(req.system)) return 'ok';
  const decided = [...req.messages[0].text.matchAll(/we decide: (.*)$/gim)].pop()?.[1] ?? 'none';
  return JSON.stringify({
    topic: 'Database',
    context: 'c',
    decision: decided,
    rationale: 'r',
    action_items: [],
    supersedes: [],
    constraints: [],
    current_state: '',
  });
}

interface Decision {
  id: string;
  text: string;
  status?: string;
  supersededBy?: string;
  ratifiedBy?: { id: string; name: string }[];
  disputedBy?: { id: string };
}

/** The condensation's buttons on the pinned post (issue 43 §1), through the real client against the fake Discord. */
describe('Confirm, Reopen and Supersede on a pinned condensation', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let alice: FakeUser;
  let bo: FakeUser;

  async function start(config?: unknown): Promise<void> {
    ({ h, guild, general, alice, bo } = await startCast('db', config));
    h.model.setHandler(secretaryModel);
  }
  afterEach(async () => {
    await h.close();
  });

  const dir = () => path.join(h.dataDir, guild.id, general.id);
  const contextMd = () => fs.readFileSync(path.join(dir(), 'CONTEXT.md'), 'utf8');
  const decisions = (): Decision[] => {
    const file = path.join(dir(), '.minutes', 'context.json');
    return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { decisions: Decision[] }).decisions : [];
  };
  const posts = () => h.discord.botMessagesIn(general.id).filter((m) => m.content.includes('📝 Condensation'));

  /** A thread condensed by a 📝: its post in #db, and its thread. */
  async function condensed(decision: string): Promise<{ post: FakeMessage; thread: FakeChannel; id: string }> {
    const thread = h.discord.createThread(general.id, { name: 'which db', ownerId: alice.id });
    const first = h.discord.userSays(thread.id, alice.id, 'Postgres or MySQL?');
    h.discord.userSays(thread.id, bo.id, `we decide: ${decision}`);
    const before = posts().length;
    h.discord.react(thread.id, first.id, alice.id, '📝');
    await h.discord.waitFor(() => (posts().length > before ? true : undefined), 8000, 'the post');
    const post = posts().at(-1)!;
    await h.discord.waitFor(() => (decisions().length && h.discord.buttonsOf(post.id).length ? true : undefined), 5000, 'context.json');
    return { post, thread, id: decisions().find((d) => d.text === decision)!.id };
  }

  async function click(post: FakeMessage, user: FakeUser, label: string): Promise<FakeInteraction> {
    const button = h.discord.buttonsOf(post.id).find((b) => b.label === label)!;
    const ix = h.discord.clickButton(post.id, user.id, button.custom_id!);
    await h.discord.waitFor(() => (ix.answered || ix.modal ? true : undefined), 8000, `the answer to ${label}`);
    expect(ix.ackDelayMs!).toBeLessThan(3000);
    return ix;
  }

  it('the pinned post carries Confirm, Reopen and Supersede; Confirm ratifies with who, in context.json and CONTEXT.md; Supersede stays', async () => {
    await start();
    const { post, id } = await condensed('the importer uses Postgres');
    expect(h.discord.pinsIn(general.id).map((p) => p.message.id)).toContain(post.id);
    expect(h.discord.buttonsOf(post.id).map((b) => b.label)).toEqual(['Confirm', 'Reopen', 'Supersede']);
    expect(h.discord.buttonsOf(post.id).every((b) => b.custom_id!.includes(id))).toBe(true);
    expect(contextMd()).toMatch(/the importer uses Postgres.*— proposed/);

    const ix = await click(post, bo, 'Confirm');
    expect(ix.ephemeral).toBe(true);
    expect(ix.texts).toEqual([`Confirmed: ${id} is ratified.`]);
    const d = decisions().find((x) => x.id === id)!;
    expect(d.status).toBe('ratified');
    expect(d.ratifiedBy).toEqual([expect.objectContaining({ id: bo.id, name: 'bo' })]);
    expect(contextMd()).toMatch(/the importer uses Postgres.*— ratified by bo \(\d{4}-\d{2}-\d{2}\)/);
    expect(h.discord.buttonsOf(post.id).map((b) => b.label)).toContain('Supersede');

    const again = await click(post, bo, 'Confirm');
    expect(again.texts).toEqual([`You already confirmed ${id}.`]);
    expect(h.discord.pingsNobody(again.original!)).toBe(true);
    expect(h.discord.problems).toEqual([]);
  });

  it('buttons keep working after a restart (their ids name the decision)', async () => {
    await start({ secretary: { ratify: { minConfirmations: 2 } } });
    const { post, id } = await condensed('the importer uses Postgres');
    expect((await click(post, alice, 'Confirm')).texts).toEqual([`Confirmed: ${id} needs 1 more member to confirm it before it is ratified.`]);
    await h.bot.stop();
    await h.launch();
    expect((await click(post, bo, 'Confirm')).texts).toEqual([`Confirmed: ${id} is ratified.`]);
    expect(
      decisions()
        .find((x) => x.id === id)!
        .ratifiedBy!.map((c) => c.name),
    ).toEqual(['alice', 'bo']);
  });

  it('a member the rules do not allow is refused in one line only they see, and nothing changes', async () => {
    // The channel's rules: only members with this role may confirm (secretary.ratify.role); bo has none.
    await start({ secretary: { ratify: { role: '123456789012345678' } } });
    const { post, id } = await condensed('the importer uses Postgres');
    for (const label of ['Confirm', 'Reopen', 'Supersede']) {
      const ix = await click(post, bo, label);
      expect(ix.ephemeral).toBe(true);
      expect(ix.texts).toHaveLength(1);
      expect(ix.texts[0]).toMatch(/^Only members with the role <@&123456789012345678> may /);
      expect(ix.texts[0]).not.toContain('\n');
      expect(ix.modal).toBeUndefined();
    }
    expect(decisions().find((x) => x.id === id)!.status).toBe('proposed');
  });

  it('Reopen: disputed, the archived thread is reopened with a one-line note that pings nobody', async () => {
    await start();
    const { post, thread, id } = await condensed('the importer uses Postgres');
    h.discord.archiveThread(thread.id);
    await h.discord.waitFor(() => (h.discord.channel(thread.id).thread!.archived ? true : undefined), 2000, 'archived');
    const ix = await click(post, alice, 'Reopen');
    expect(ix.ephemeral).toBe(true);
    expect(ix.texts[0]).toMatch(new RegExp(`^Reopened: ${id} is disputed; noted in https://discord.com/channels/`));
    expect(h.discord.channel(thread.id).thread!.archived).toBe(false);
    const note = h.discord.botMessagesIn(thread.id).at(-1)!;
    expect(note.content).toMatch(
      new RegExp(`^alice reopened ${id} \\(“the importer uses Postgres”\\): it is disputed until a new condensation settles it\\.$`),
    );
    expect(h.discord.pingsNobody(note)).toBe(true);
    const d = decisions().find((x) => x.id === id)!;
    expect([d.status, d.disputedBy?.id]).toEqual(['disputed', alice.id]);
    expect(contextMd()).toMatch(/the importer uses Postgres.*— disputed: reopened by alice/);
    // A disputed decision waits for a condensation: Confirm is refused, in one line.
    expect((await click(post, bo, 'Confirm')).texts[0]).toMatch(new RegExp(`^${id} was reopened by alice on \\d{4}-\\d{2}-\\d{2}: a new condensation`));
  });

  it('Supersede: a form for the new decision and why; its submission is posted, pinned, folded into CONTEXT.md, the old one struck through', async () => {
    await start();
    const { post, id } = await condensed('the importer uses MySQL');
    await click(post, alice, 'Confirm');
    const shown = await click(post, bo, 'Supersede');
    expect(shown.modal!.inputs.map((i) => [i.custom_id, i.label, i.required])).toEqual([
      ['decision', 'The new decision', true],
      ['reason', 'Why it replaces the old one', true],
    ]);
    const sent = h.discord.submitModal(shown, bo.id, { decision: 'the importer uses Postgres', reason: 'MySQL lacks the JSON operators we need' });
    await h.discord.waitForAnswer(sent, 10_000);
    expect(sent.ackDelayMs!).toBeLessThan(3000);
    expect(sent.ephemeral).toBe(true);
    const now = decisions().find((d) => d.text === 'the importer uses Postgres')!;
    expect(sent.texts[0]).toMatch(new RegExp(`^Recorded ${now.id}, replacing ${id}: https://discord.com/channels/`));
    const newPost = posts().at(-1)!;
    expect(newPost.id).not.toBe(post.id);
    expect(newPost.content).toContain('the importer uses Postgres');
    expect(newPost.content).toContain('MySQL lacks the JSON operators we need');
    expect(h.discord.pinsIn(general.id).map((p) => p.message.id)).toContain(newPost.id);
    expect(h.discord.buttonsOf(newPost.id).map((b) => b.label)).toEqual(['Confirm', 'Reopen', 'Supersede']);
    expect(decisions().find((d) => d.id === id)!.supersededBy).toBe(now.id);
    expect(now.status).toBe('proposed');
    expect(contextMd()).toMatch(/~~.*the importer uses MySQL.*~~/);
    expect(contextMd()).toMatch(/the importer uses Postgres.*— proposed/);
    // The old post's buttons now say it is replaced.
    expect((await click(post, alice, 'Supersede')).texts[0]).toBe(`${id} was already replaced by ${now.id}: it is no longer in force.`);
    expect(h.discord.problems).toEqual([]);
  });
});
