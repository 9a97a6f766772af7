import fs from 'node:fs';
import path from 'node:path';
import type { FakeRequest } from '../fakes/model/types';
import type { FakeChannel, FakeGuild, FakeMessage, FakeUser } from '../fakes/discord/state';
import { BotHarness, startCast } from '../helpers/botHarness';

/** A Secretary model: the decision after "we decide:", the items after "todo:". */
function secretaryModel(req: FakeRequest): string {
  if (!/Secretary of a team/.test(req.system)) return 'ok';
  const input = req.messages[0].text;
  return JSON.stringify({
    topic: 'Database',
    context: 'c',
    decision: [...input.matchAll(/we decide: (.*)$/gim)].pop()?.[1] ?? 'none',
    rationale: 'r',
    action_items: [...input.matchAll(/todo: (.*)$/gim)].map((m) => m[1]),
    supersedes: [],
    constraints: [],
    current_state: '',
  });
}

/** `/decisions at:` and `/catchup` (issue 43 §3), through the real client against the fake Discord. */
describe('/decisions at and /catchup', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let alice: FakeUser;
  let bo: FakeUser;

  beforeEach(async () => {
    ({ h, guild, general, alice, bo } = await startCast('db'));
    h.model.setHandler(secretaryModel);
  });
  afterEach(async () => {
    await h.close();
  });

  const file = (...p: string[]) => path.join(h.dataDir, guild.id, general.id, ...p);
  const read = (...p: string[]) => (fs.existsSync(file(...p)) ? fs.readFileSync(file(...p), 'utf8') : '');
  const posts = () => h.discord.botMessagesIn(general.id).filter((m) => m.content.includes('📝 Condensation'));
  const today = () => new Date().toISOString().slice(0, 10);

  async function slash(user: FakeUser, command: string, options: Record<string, string> = {}): Promise<string> {
    const ix = h.discord.slashCommand(general.id, user.id, command, options);
    await h.discord.waitForAnswer(ix, 8000);
    expect(ix.ephemeral).toBe(true);
    return ix.texts.join('\n');
  }

  async function condensed(lines: [FakeUser, string][]): Promise<FakeMessage> {
    const thread = h.discord.createThread(general.id, { name: 'which db', ownerId: alice.id });
    const ids = lines.map(([u, t]) => h.discord.userSays(thread.id, u.id, t).id);
    const before = posts().length;
    h.discord.react(thread.id, ids[0], alice.id, '📝');
    await h.discord.waitFor(() => (posts().length > before ? true : undefined), 8000, 'the post');
    await h.discord.waitFor(() => (read('.minutes', 'context.json').includes('"decisions"') ? true : undefined), 5000, 'context.json');
    return posts().at(-1)!;
  }

  it('/decisions at: the decisions in force at the end of that day, with status and link; a replaced one listed as such', async () => {
    const post = await condensed([
      [alice, 'Postgres or MySQL?'],
      [bo, 'we decide: the importer uses MySQL'],
    ]);
    expect(await slash(alice, 'decisions', { at: '2020-01-01' })).toBe('No decisions had been recorded in this channel by the end of 2020-01-01 (UTC).');
    expect(await slash(alice, 'decisions', { at: '2026-02-30' })).toMatch(/^"2026-02-30" is not a date: give a day as YYYY-MM-DD/);
    const id = /`(d-[0-9a-f]{10})`/.exec(await slash(alice, 'decisions', { at: today() }))![1];
    expect(await slash(alice, 'decisions', { at: today() })).toContain(
      `- \`${id}\` (${today()}) **Database**: the importer uses MySQL — proposed — https://discord.com/channels/${guild.id}/${general.id}/${post.id}`,
    );

    // Replaced through Supersede: listed under "Replaced by then".
    const shown = h.discord.clickButton(post.id, bo.id, h.discord.buttonsOf(post.id).find((b) => b.label === 'Supersede')!.custom_id!);
    await h.discord.waitFor(() => (shown.modal ? true : undefined), 5000, 'the form');
    const sent = h.discord.submitModal(shown, bo.id, { decision: 'the importer uses Postgres', reason: 'JSON' });
    await h.discord.waitForAnswer(sent, 10_000);
    const now = await slash(alice, 'decisions');
    expect(now).toMatch(/the importer uses Postgres — proposed — https:/);
    expect(now).toMatch(new RegExp(`\\*\\*Replaced by then\\*\\*\\n- ~~\`${id}\` the importer uses MySQL~~ → \`d-[0-9a-f]{10}\` \\(${today()}\\)`));
  });

  it('/catchup: decisions made and replaced since the member last spoke, action items given to them, with links', async () => {
    // The bot logs a channel's messages once it is active there (it answered someone).
    const q = h.discord.userSays(general.id, alice.id, 'hello', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q.id });
    const said = h.discord.userSays(general.id, bo.id, 'off for the afternoon');
    await h.discord.waitFor(() => (read('log.jsonl').includes(said.id) ? true : undefined), 5000, 'logged');
    expect(await slash(h.discord.addMember(guild.id, { username: 'cy' }), 'catchup')).toMatch(/^I have no message of yours in this channel's log/);
    expect(await slash(bo, 'catchup')).toMatch(/Nothing changed: no decision made or replaced/);

    const post = await condensed([
      [alice, 'Postgres or MySQL?'],
      [alice, 'we decide: the importer uses Postgres'],
      [bo, 'todo: bo: write the migration'],
    ]);
    const link = `https://discord.com/channels/${guild.id}/${general.id}/${post.id}`;
    const text = await slash(bo, 'catchup');
    expect(text).toMatch(/^\*\*Since you last spoke here \(\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\)\*\*/);
    expect(text).toMatch(
      new RegExp(`\\*\\*Decisions made\\*\\*\\n- \`d-[0-9a-f]{10}\` \\(${today()}\\) \\*\\*Database\\*\\*: the importer uses Postgres — proposed — ${link}`),
    );
    expect(text).toMatch(new RegExp(`\\*\\*Action items given to you\\*\\*\\n- \`a-[0-9a-f]{6}\` write the migration — ${link}`));

    // An item closed since alice spoke is news to her too.
    const item = /`(a-[0-9a-f]{6})`/.exec(text)![1];
    await slash(bo, 'actions', { done: item });
    expect(await slash(alice, 'catchup')).toMatch(
      new RegExp(`\\*\\*Action items closed\\*\\*\\n- \`${item}\` write the migration — done \\(bo\\), ${today()}`),
    );

    // Once bo speaks again, the decision and the item given to him are old news (closures keep only their day).
    const again = h.discord.userSays(general.id, bo.id, 'back');
    await h.discord.waitFor(() => (read('log.jsonl').includes(again.id) ? true : undefined), 5000, 'logged');
    const later = await slash(bo, 'catchup');
    expect(later).not.toContain('Decisions made');
    expect(later).not.toContain('Action items given to you');
  });
});
