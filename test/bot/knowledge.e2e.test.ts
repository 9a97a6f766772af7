import fs from 'node:fs';
import path from 'node:path';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { BotHarness, startCast } from '../helpers/botHarness';
import { runCli } from '../helpers/cli';
import { knowledgeModel } from '../helpers/knowledgeModel';

/**
 * Open questions and playbooks on Discord, against the fake Discord and the fake model: a
 * condensation files both (CONTEXT.md, MEMORY.md, playbooks/), /questions and /playbooks list them,
 * the asker answers one by hand, a later condensation answers another and changes the playbook
 * (old steps struck through, said in the channel), and the audit flags a question left open too long.
 */
const DAY = 86_400_000;

describe('open questions and playbooks on Discord', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let alice: FakeUser;
  let bo: FakeUser;

  beforeEach(async () => {
    ({ h, guild, general, alice, bo } = await startCast('release'));
    h.model.setHandler(knowledgeModel());
    const q = h.discord.userSays(general.id, alice.id, 'hello', { mentionsBot: true });
    await h.discord.waitForBotMessage(general.id, { after: q.id });
  });
  afterEach(async () => {
    await h.close();
  });

  const file = (f: string) => path.join(h.dataDir, guild.id, general.id, f);
  const read = (f: string) => fs.readFileSync(file(f), 'utf8');
  const posts = () => h.discord.botMessagesIn(general.id).filter((m) => m.content.includes('📝 Condensation'));
  async function condense(name: string, lines: [FakeUser, string][], at: number): Promise<FakeChannel> {
    const thread = h.discord.createThread(general.id, { name, ownerId: alice.id });
    const ids = lines.map(([u, t], i) => h.discord.userSays(thread.id, u.id, t, { at: at + i * 60_000 }).id);
    const before = posts().length;
    const ledger = file('.minutes/ledger.json');
    const done = () =>
      fs.existsSync(ledger)
        ? Object.values(JSON.parse(fs.readFileSync(ledger, 'utf8')).entries).filter((e) => (e as { status: string }).status === 'done').length
        : 0;
    const doneBefore = done();
    h.discord.react(thread.id, ids[0], alice.id, '📝');
    await h.discord.waitFor(() => (posts().length > before ? true : undefined), 8000, 'the post');
    // Every step, HISTORY.md last, is recorded once the ledger says done.
    await h.discord.waitFor(() => (done() > doneBefore ? true : undefined), 8000, 'the condensation done');
    return thread;
  }
  async function slash(userId: string, command: string, options: Record<string, string> = {}): Promise<string> {
    const ix = h.discord.slashCommand(general.id, userId, command, options);
    await h.discord.waitForAnswer(ix);
    expect(ix.original!.flags & 64).toBe(64);
    return ix.original!.content;
  }

  it('files both, answers by hand and by a later condensation, changes the playbook visibly, and the audit flags a stale question', async () => {
    const longAgo = Date.now() - 20 * DAY;
    await condense(
      'shipping',
      [
        [alice, 'how do we ship from now on?'],
        [bo, 'decision: releases go out from the release branch on Tuesdays'],
        [alice, 'question: who signs off a hotfix?'],
        [bo, 'question: do we keep the staging soak?'],
        [alice, 'question: which region hosts the replica?'],
        [bo, 'playbook: Cut a release: freeze the release branch; run the checklist; tag and deploy'],
      ],
      longAgo,
    );
    const opened = new Date(longAgo).toISOString().slice(0, 10);
    expect(posts()[0].content).toContain(
      '**Open questions:** alice: who signs off a hotfix?; bo: do we keep the staging soak?; alice: which region hosts the replica?',
    );
    const ids = [...read('CONTEXT.md').matchAll(/^- `(q-[0-9a-f]{6})` /gm)].map((m) => m[1]);
    expect(ids).toHaveLength(3);
    const [hotfix, soak, region] = ids;
    expect(read('CONTEXT.md')).toContain(`## Open Questions\n\n- \`${hotfix}\` who signs off a hotfix? — alice _(from ${opened})_\n`);
    expect(read('CONTEXT.md')).toContain(
      `## Playbooks\n\n- **Cut a release:** freeze the release branch → run the checklist → tag and deploy ([playbook](playbooks/cut-a-release.md)) _(from ${opened})_\n`,
    );
    expect(read('playbooks/cut-a-release.md')).toContain('## Steps\n\n1. freeze the release branch\n2. run the checklist\n3. tag and deploy\n');
    expect(read('MEMORY.md')).toContain(`Open question ${soak} (Release process): do we keep the staging soak? — asked by bo`);
    expect(read('MEMORY.md')).toContain(
      'Playbook "Cut a release" (3 steps, in playbooks/cut-a-release.md): freeze the release branch → run the checklist → tag and deploy',
    );

    // The audit (the CLI over the bot's data root) lists questions open longer than actions.staleAfterDays.
    const audit = await runCli(['audit'], { env: { MINUTES_DATA_DIR: h.dataDir }, cwd: h.dataDir });
    expect(audit.stdout).toContain(
      `question ${soak} open since ${opened} (asked by bo): "do we keep the staging soak?" — answer it with /questions answer:${soak} text:<answer>`,
    );

    expect(await slash(alice.id, 'questions')).toBe(
      [
        'Open questions (3); answer one with /questions answer:<id> text:<answer>:',
        `- \`${hotfix}\` who signs off a hotfix? — alice _(from ${opened})_`,
        `- \`${soak}\` do we keep the staging soak? — bo _(from ${opened})_`,
        `- \`${region}\` which region hosts the replica? — alice _(from ${opened})_`,
      ].join('\n'),
    );
    expect(await slash(bo.id, 'playbooks')).toBe(
      [
        'Playbooks (1):',
        '',
        `**Cut a release** (from ${opened}; playbooks/cut-a-release.md)\n1. freeze the release branch\n2. run the checklist\n3. tag and deploy`,
      ].join('\n'),
    );
    // Only the asker (or an admin) answers by hand: by their account, not the name they go by.
    expect(await slash(bo.id, 'questions', { answer: region, text: 'eu-west-1' })).toBe(
      `Nothing answered: only alice (who asked) or an admin can answer ${region}.`,
    );
    const impostor = h.discord.addMember(guild.id, { username: 'mallory', nick: 'alice' });
    expect(await slash(impostor.id, 'questions', { answer: region, text: 'us-east-1' })).toBe(
      `Nothing answered: only alice (who asked) or an admin can answer ${region}.`,
    );
    expect(await slash(alice.id, 'questions', { answer: region, text: 'eu-west-1, next to the database' })).toBe(
      `Answered ${region} “which region hosts the replica?” → eu-west-1, next to the database`,
    );
    expect(read('CONTEXT.md')).not.toContain(region);
    expect(read('MEMORY.md')).toMatch(
      new RegExp(`Question ${region} answered \\(\\d{4}-\\d{2}-\\d{2}, alice\\): which region hosts the replica\\? → eu-west-1, next to the database`),
    );

    // A later condensation answers one and changes the playbook: the old steps stay, struck through.
    const second = await condense(
      'hotfixes',
      [
        [bo, 'hotfixes need a rule'],
        [alice, 'answer: hotfix => the on-call lead signs off hotfixes'],
        [bo, 'decision: releases also need a changelog entry'],
        [bo, 'playbook: Cut a release: freeze the release branch; write the changelog; run the checklist; tag and deploy'],
      ],
      Date.now() - DAY,
    );
    expect(posts()[1].content).toContain(`**Answered:** ${hotfix} “who signs off a hotfix?” → the on-call lead signs off hotfixes`);
    const notice = await h.discord.waitForBotMessage(second.id, { match: (m) => m.content.startsWith('Updated the playbook'), timeoutMs: 5000 });
    expect(notice.content).toBe('Updated the playbook “Cut a release”: playbooks/cut-a-release.md keeps its earlier steps, struck through.');
    expect(h.discord.pingsNobody(notice)).toBe(true);
    const pb = read('playbooks/cut-a-release.md');
    expect(pb).toContain('## Steps\n\n1. freeze the release branch\n2. write the changelog\n3. run the checklist\n4. tag and deploy\n');
    expect(pb).toMatch(
      /## Earlier Versions\n\n### \d{4}-\d{2}-\d{2} until \d{4}-\d{2}-\d{2}\n\n1\. ~~freeze the release branch~~\n2\. ~~run the checklist~~\n3\. ~~tag and deploy~~\n/,
    );
    expect(read('CONTEXT.md')).toContain(`## Open Questions\n\n- \`${soak}\``);
    expect(read('CONTEXT.md')).not.toContain(hotfix);
    expect(await slash(alice.id, 'questions')).toBe(
      ['Open questions (1); answer one with /questions answer:<id> text:<answer>:', `- \`${soak}\` do we keep the staging soak? — bo _(from ${opened})_`].join(
        '\n',
      ),
    );
    expect(await slash(alice.id, 'playbooks')).toMatch(
      /^Playbooks \(1\):\n\n\*\*Cut a release\*\* \(changed \d{4}-\d{2}-\d{2}, 2 versions; playbooks\/cut-a-release\.md\)\n1\. freeze/,
    );
  });
});
