import fs from 'node:fs';
import matter from 'gray-matter';
import path from 'node:path';
import type { FakeRequest } from '../fakes/model/types';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { humanMessages, ledgerKey } from '../../src/condense/condensation/transcript';
import { condensationMarkIn } from '../../src/shared/markers';
import { BotHarness, startCast } from '../helpers/botHarness';

/**
 * A scripted Secretary model: the decision is the last line starting "we decide:", and a
 * discussion that says "replaces the earlier decision" supersedes every current decision shown.
 */
function secretaryModel(req: FakeRequest): string {
  if (!/Secretary of a team/.test(req.system)) return 'ok';
  const input = req.messages[0].text;
  const decided = [...input.matchAll(/we decide: (.*)$/gim)].pop()?.[1];
  const current = [...input.matchAll(/^- (d-[0-9a-f]+) /gm)].map((m) => m[1]);
  return JSON.stringify({
    topic: decided ? `Decision on ${decided.split(' ').slice(0, 3).join(' ')}` : 'Open discussion',
    context: 'The team discussed the release process.',
    decision: decided ?? 'none',
    rationale: 'Less risk.',
    action_items: ['bo: update the runbook'],
    supersedes: /replaces the earlier decision/i.test(input) ? current : [],
    constraints: decided ? ['No releases on public holidays'] : [],
    current_state: 'Agreed and documented.',
  });
}

describe('the Secretary on Discord', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let alice: FakeUser;
  let bo: FakeUser;

  beforeEach(async () => {
    ({ h, guild, general, alice, bo } = await startCast('release'));
    h.model.setHandler(secretaryModel);
    // The bot has worked in the channel before (auto triggers count from then).
    const q = h.discord.userSays(general.id, alice.id, 'hello', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q.id });
    // The folder's templates are written alongside the first turn; wait for them.
    const templates = ['CONTEXT.md', 'MEMORY.md', 'SESSION.md', 'HISTORY.md'].map((f) => path.join(h.dataDir, guild.id, general.id, f));
    await h.discord.waitFor(() => (templates.every((f) => fs.existsSync(f)) ? true : undefined), 5000, 'templates');
  });
  afterEach(async () => {
    await h.close();
  });

  const channelDir = () => path.join(h.dataDir, guild.id, general.id);
  const read = (f: string) => fs.readFileSync(path.join(channelDir(), f), 'utf8');
  const condensationFiles = () => {
    const dir = path.join(channelDir(), 'condensations');
    return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.md')) : [];
  };
  const condensationPosts = () => h.discord.botMessagesIn(general.id).filter((m) => m.content.includes('📝 Condensation'));

  function discuss(thread: FakeChannel, lines: [FakeUser, string][]): string[] {
    return lines.map(([u, text]) => h.discord.userSays(thread.id, u.id, text).id);
  }

  it('📝 on a thread message: posted and pinned in the parent, filed, CONTEXT.md and MEMORY.md updated; never twice', async () => {
    const thread = h.discord.createThread(general.id, { name: 'release day', ownerId: alice.id });
    const ids = discuss(thread, [
      [alice, 'Should we release on Fridays?'],
      [bo, 'Risky, nobody is around on weekends.'],
      [alice, 'we decide: releases happen on Tuesdays'],
    ]);
    h.discord.react(thread.id, ids[0], alice.id, '📝');
    const post = await h.discord.waitForBotMessage(general.id, { match: (m) => m.content.includes('📝 Condensation'), timeoutMs: 8000 });
    expect(post.content).toMatch(/\*\*Decision:\*\* releases happen on Tuesdays/);
    expect(post.content).toMatch(/\*\*Participants:\*\* .*alice.*bo|\*\*Participants:\*\* .*bo.*alice/);
    expect(h.discord.pingsNobody(post)).toBe(true);
    await h.discord.waitFor(() => (h.discord.pinsIn(general.id).length ? true : undefined), 5000, 'the pin');
    await h.discord.waitFor(
      () => (fs.existsSync(path.join(channelDir(), 'condensations')) && read('CONTEXT.md').includes('Tuesdays') ? true : undefined),
      5000,
      'CONTEXT.md',
    );
    const files = fs.readdirSync(path.join(channelDir(), 'condensations'));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{4}-\d{2}-\d{2}-.*\.md$/);
    await h.discord.waitFor(() => (read('MEMORY.md').includes('releases happen on Tuesdays') ? true : undefined), 5000, 'MEMORY.md');
    expect(read('MEMORY.md')).toMatch(/\[m-[0-9a-f]+\] .*releases happen on Tuesdays \[from: /);

    // The same 📝 again, and a second person's: no second condensation.
    h.discord.react(thread.id, ids[1], bo.id, '📝');
    h.discord.react(thread.id, ids[2], alice.id, '📝');
    await new Promise((r) => setTimeout(r, 800));
    expect(condensationPosts()).toHaveLength(1);
    expect(fs.readdirSync(path.join(channelDir(), 'condensations'))).toHaveLength(1);
  });

  it('an answer that rests on a pinned condensation links its post; an unrelated answer does not', async () => {
    const thread = h.discord.createThread(general.id, { name: 'release day', ownerId: alice.id });
    const ids = discuss(thread, [
      [alice, 'Which weekday do we release?'],
      [bo, 'Fridays are risky.'],
      [alice, 'we decide: production releases happen on Tuesdays after the standup'],
    ]);
    h.discord.react(thread.id, ids[0], alice.id, '📝');
    await h.discord.waitForBotMessage(general.id, { match: (m) => m.content.includes('📝 Condensation'), timeoutMs: 8000 });
    // The folder can exist a moment before the file is renamed into it.
    const file = await h.discord.waitFor(() => condensationFiles()[0], 5000, 'the file');
    await h.discord.waitFor(() => (/post_url: /.test(read(`condensations/${file}`)) ? true : undefined), 5000, 'post_url');
    const url = String(matter(read(`condensations/${file}`), {}).data.post_url);
    expect(url).toMatch(/^https:\/\/discord\.com\/channels\//);
    // A model that answers from what was recalled, as a real one would.
    h.model.setHandler((req) => {
      if (/Secretary of a team/.test(req.system)) return secretaryModel(req);
      if (/recalled_memory/.test(req.lastUserText) && /Tuesdays/.test(req.lastUserText)) return 'Production releases happen on Tuesdays, after the standup.';
      return 'No idea, sorry.';
    });
    const q = h.discord.userSays(general.id, alice.id, 'on which weekday do production releases happen?', { mentionsBot: true });
    const reply = await h.discord.waitForBotMessage(general.id, { after: q.id });
    expect(reply.content).toContain(`-# From the decision log: <${url}>`);
    expect(h.discord.pingsNobody(reply)).toBe(true);
    const q2 = h.discord.userSays(general.id, alice.id, 'tell me a joke about penguins', { mentionsBot: true });
    const reply2 = await h.discord.waitForBotMessage(general.id, { after: q2.id });
    expect(reply2.content).not.toContain('decision log');
  });

  it('reads a thread that needs two pages of history whole', async () => {
    const thread = h.discord.createThread(general.id, { name: 'long one', ownerId: alice.id });
    for (let i = 0; i < 150; i++) h.discord.userSays(thread.id, i % 2 ? bo.id : alice.id, `point number ${i}`, { dispatch: false });
    const last = h.discord.userSays(thread.id, alice.id, 'we decide: ship the long plan');
    const ix = h.discord.slashCommand(thread.id, alice.id, 'condense', {});
    await h.discord.waitForAnswer(ix, 10_000);
    const req = h.model.requests.find((r) => /Secretary of a team/.test(r.system))!;
    expect(req.messages[0].text).toContain('point number 0');
    expect(req.messages[0].text).toContain('point number 149');
    expect(req.messages[0].text).toContain('ship the long plan');
    expect(last.id).toBeDefined();
  });

  it('a later decision supersedes the first: struck through in CONTEXT.md and no longer recalled as current', async () => {
    const t1 = h.discord.createThread(general.id, { name: 'first', ownerId: alice.id });
    const a = discuss(t1, [
      [alice, 'Which database?'],
      [bo, 'we decide: the billing service uses MySQL for storage'],
    ]);
    h.discord.react(t1.id, a[0], alice.id, '📝');
    await h.discord.waitFor(() => (condensationPosts().length === 1 ? true : undefined), 8000, 'first post');
    const t2 = h.discord.createThread(general.id, { name: 'second', ownerId: bo.id });
    const b = discuss(t2, [
      [bo, 'MySQL hurts us.'],
      [alice, 'This replaces the earlier decision. we decide: the billing service uses Postgres for storage'],
    ]);
    h.discord.react(t2.id, b[0], bo.id, '📝');
    await h.discord.waitFor(() => (condensationPosts().length === 2 ? true : undefined), 8000, 'second post');
    await h.discord.waitFor(() => (/~~.*MySQL.*~~ → Replaced by/.test(read('CONTEXT.md')) ? true : undefined), 5000, 'struck through');
    await h.discord.waitFor(() => (/~~\[m-[0-9a-f]+\] .*MySQL.*~~ →/.test(read('MEMORY.md')) ? true : undefined), 5000, 'MEMORY.md superseded');
    const ix = h.discord.slashCommand(general.id, alice.id, 'recall', { query: 'which storage does the billing service use, MySQL or Postgres?' });
    await h.discord.waitForAnswer(ix);
    const shown = ix.original!.content;
    expect(shown).toContain('Postgres');
    // MySQL may appear only as what was superseded, never as a current entry.
    expect(shown).not.toMatch(/- \[m-[0-9a-f]+\] [^~\n]*uses MySQL for storage/);
  });

  it('invalid JSON twice: nothing written, the failure in the ledger, one clear message', async () => {
    h.model.setHandler((req) => (/Secretary of a team/.test(req.system) ? 'sorry, I cannot do JSON today' : 'ok'));
    const thread = h.discord.createThread(general.id, { name: 'broken', ownerId: alice.id });
    const ids = discuss(thread, [
      [alice, 'topic'],
      [bo, 'we decide: something'],
    ]);
    const before = read('MEMORY.md') + read('CONTEXT.md');
    h.discord.react(thread.id, ids[0], alice.id, '📝');
    const msg = await h.discord.waitForBotMessage(thread.id, { timeoutMs: 8000 });
    expect(msg.content.split('\n')).toHaveLength(1);
    expect(read('MEMORY.md') + read('CONTEXT.md')).toBe(before);
    expect(fs.existsSync(path.join(channelDir(), 'condensations'))).toBe(false);
    expect(condensationPosts()).toHaveLength(0);
    const ledger = JSON.parse(fs.readFileSync(path.join(channelDir(), '.minutes', 'ledger.json'), 'utf8'));
    expect(Object.values(ledger.entries as Record<string, { status: string; lastError?: string }>)[0]).toMatchObject({ status: 'failed' });
  });

  it('a private thread: the condensation stays inside it and nothing reaches the parent', async () => {
    const thread = h.discord.createThread(general.id, { name: 'secret', ownerId: alice.id, private: true, memberIds: [bo.id] });
    const ids = discuss(thread, [
      [alice, 'hush'],
      [bo, 'we decide: the acquisition codename is Otter'],
    ]);
    const before = read('MEMORY.md') + read('CONTEXT.md') + read('HISTORY.md');
    h.discord.react(thread.id, ids[0], alice.id, '📝');
    await h.discord.waitForBotMessage(thread.id, { match: (m) => m.content.includes('📝 Condensation'), timeoutMs: 8000 });
    await new Promise((r) => setTimeout(r, 300));
    expect(condensationPosts()).toHaveLength(0);
    expect(read('MEMORY.md') + read('CONTEXT.md') + read('HISTORY.md')).toBe(before);
    expect(JSON.stringify(fs.readdirSync(channelDir(), { recursive: true }))).not.toMatch(/^condensations/);
    const ix = h.discord.slashCommand(general.id, alice.id, 'recall', { query: 'what is the acquisition codename?' });
    await h.discord.waitForAnswer(ix);
    expect(ix.original!.content).not.toContain('Otter');
  });

  it('/resolve condenses and archives; an auto-archived thread with enough discussion is condensed once; a short one is not', async () => {
    const t = h.discord.createThread(general.id, { name: 'resolve me', ownerId: alice.id });
    discuss(t, [
      [alice, 'a'],
      [bo, 'we decide: logs are kept for 30 days'],
    ]);
    const ix = h.discord.slashCommand(t.id, alice.id, 'resolve', {});
    await h.discord.waitForAnswer(ix, 10_000);
    expect(ix.original!.content).toMatch(/Condensed/);
    await h.discord.waitFor(() => (h.discord.channel(t.id).thread?.archived ? true : undefined), 5000, 'archived');

    const busy = h.discord.createThread(general.id, { name: 'busy', ownerId: alice.id });
    discuss(busy, [
      [alice, '1'],
      [bo, '2'],
      [alice, '3'],
      [bo, '4'],
      [alice, '5'],
      [bo, 'we decide: on-call rotates weekly'],
    ]);
    const short = h.discord.createThread(general.id, { name: 'short', ownerId: alice.id });
    discuss(short, [
      [alice, 'we decide: nothing much'],
      [alice, 'ok'],
    ]);
    h.discord.archiveThread(short.id);
    h.discord.archiveThread(busy.id);
    await h.discord.waitFor(
      () => (condensationPosts().some((p) => p.content.includes('on-call rotates weekly')) ? true : undefined),
      8000,
      'auto condensation',
    );
    h.discord.unarchiveThread(busy.id);
    h.discord.archiveThread(busy.id);
    await new Promise((r) => setTimeout(r, 800));
    expect(condensationPosts().filter((p) => p.content.includes('on-call rotates weekly'))).toHaveLength(1);
    expect(condensationPosts().some((p) => p.content.includes('nothing much'))).toBe(false);
  });

  it('a forum post tagged resolved gets its condensation inside the post, filed under the forum folder', async () => {
    const forum = h.discord.createForum(guild.id, { name: 'questions', tags: ['resolved', 'open'] });
    // Let the bot learn the forum exists and has worked there.
    const { thread, starter } = h.discord.createForumPost(forum.id, { ownerId: alice.id, name: 'How do we rotate keys?', content: 'How do we rotate keys?' });
    const q = h.discord.userSays(thread.id, bo.id, 'any idea?', { mentionsBot: true });
    await h.discord.waitForBotMessage(thread.id, { after: q.id });
    discuss(thread, [
      [alice, 'monthly?'],
      [bo, 'weekly is safer'],
      [alice, 'weekly costs more'],
      [bo, 'fine'],
      [alice, 'we decide: keys rotate monthly'],
    ]);
    h.discord.setForumTags(thread.id, ['resolved']);
    const post = await h.discord.waitForBotMessage(thread.id, { match: (m) => m.content.includes('📝 Condensation'), timeoutMs: 8000 });
    expect(post.content).toContain('keys rotate monthly');
    const dir = path.join(h.dataDir, guild.id, forum.id, 'condensations');
    await h.discord.waitFor(() => (fs.existsSync(dir) && fs.readdirSync(dir).length === 1 ? true : undefined), 5000, 'filed under the forum folder');
    expect(starter.id).toBeDefined();
  });

  it('the post carries its ledger key where people do not see it; an older post with the visible marker line is still found, not posted again', async () => {
    const thread = h.discord.createThread(general.id, { name: 'deploys', ownerId: alice.id });
    const ids = discuss(thread, [
      [alice, 'When do we deploy?'],
      [bo, 'we decide: deploys happen before noon'],
    ]);
    h.discord.react(thread.id, ids[0], alice.id, '📝');
    const post = await h.discord.waitForBotMessage(general.id, { match: (m) => m.content.includes('📝 Condensation'), timeoutMs: 8000 });
    // Nothing a person reads names the marker (Discord shows zero-width characters as nothing).
    expect(post.content).not.toContain('minutes:cond');
    expect(post.content.split('\n').pop()).toMatch(/^\*\*/);
    const human = (threadId: string) =>
      humanMessages(
        h.discord
          .messagesIn(threadId)
          .filter((m) => m.type === 0)
          .map((m) => ({
            id: m.id,
            authorId: m.authorId,
            authorName: '',
            at: new Date(m.createdAt),
            content: m.content,
            isBot: m.authorId === h.discord.bot.id,
          })),
      );
    expect(condensationMarkIn(post.content)).toBe(`minutes:cond:${ledgerKey(human(thread.id)).slice(0, 12)}`);

    // A post from before this change (a run that died right after posting it): found by its visible line and pinned, not posted again.
    const t2 = h.discord.createThread(general.id, { name: 'reviews', ownerId: alice.id });
    const b = discuss(t2, [
      [alice, 'Who reviews?'],
      [bo, 'we decide: two reviewers per change'],
    ]);
    const key = ledgerKey(human(t2.id)).slice(0, 12);
    const old = h.discord.userSays(
      general.id,
      h.discord.bot.id,
      `## 📝 Condensation: Reviews\n**Decision:** two reviewers per change\n-# minutes:cond:${key}`,
      {
        dispatch: false,
      },
    );
    h.discord.react(t2.id, b[0], alice.id, '📝');
    await h.discord.waitFor(() => (h.discord.message(old.id).pinned ? true : undefined), 8000, 'the older post pinned');
    await new Promise((r) => setTimeout(r, 300));
    expect(condensationPosts()).toHaveLength(2);
  });

  it("pins full: the bot's oldest condensation is unpinned, a person's pin is untouched", async () => {
    const personal = h.discord.userSays(general.id, alice.id, 'important link');
    h.discord.pin(personal.id, alice.id);
    const t1 = h.discord.createThread(general.id, { name: 'one', ownerId: alice.id });
    const a = discuss(t1, [
      [alice, 'x'],
      [bo, 'we decide: first thing'],
    ]);
    h.discord.react(t1.id, a[0], alice.id, '📝');
    await h.discord.waitFor(() => (condensationPosts().length === 1 && h.discord.pinsIn(general.id).length === 2 ? true : undefined), 8000, 'first pinned');
    // Fill the remaining pins with a person's pins.
    for (let i = 0; i < 248; i++) {
      const m = h.discord.userSays(general.id, bo.id, `filler ${i}`, { dispatch: false });
      h.discord.pin(m.id, bo.id);
    }
    expect(h.discord.pinsIn(general.id)).toHaveLength(250);
    const t2 = h.discord.createThread(general.id, { name: 'two', ownerId: alice.id });
    const b = discuss(t2, [
      [alice, 'y'],
      [bo, 'we decide: second thing'],
    ]);
    h.discord.react(t2.id, b[0], alice.id, '📝');
    await h.discord.waitFor(() => (condensationPosts().length === 2 ? true : undefined), 8000, 'second post');
    await h.discord.waitFor(
      () => (h.discord.pinsIn(general.id).some((p) => p.message.content.includes('second thing')) ? true : undefined),
      5000,
      'second pinned',
    );
    const pins = h.discord.pinsIn(general.id).map((p) => p.message);
    expect(pins.some((m) => m.id === personal.id)).toBe(true);
    expect(pins.some((m) => m.content.includes('first thing'))).toBe(false);
    expect(pins).toHaveLength(250);
  });
});
