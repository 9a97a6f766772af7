import fs from 'node:fs';
import path from 'node:path';
import { blocks, runCli } from '../helpers/cli';
import { withTmpAndFakeModel } from '../helpers/tmpAndFakeModel';

/**
 * `/actions`, `/questions` and `/playbooks` in console mode, the same commands Discord has (issue
 * 42): listing, and closing or answering one; the person at the console runs the bot, so an admin.
 */
describe('console knowledge commands', () => {
  const world = withTmpAndFakeModel();
  const env = (): NodeJS.ProcessEnv => ({
    ANTHROPIC_API_KEY: 'k',
    ANTHROPIC_BASE_URL: world.fake.anthropicBaseURL,
    MINUTES_DATA_DIR: path.join(world.tmp.dir, 'data'),
  });
  const dir = () => path.join(world.tmp.dir, 'data', 'local', 'ops');

  function seed(): void {
    fs.mkdirSync(path.join(dir(), '.minutes'), { recursive: true });
    const context = {
      version: 1,
      decisions: [],
      constraints: [],
      actions: [
        { id: 'a-111111', text: 'set up the MySQL replicas', owner: 'al', ownerId: '42', decisionId: 'd-1', opened: '2026-11-20', status: 'open' },
        { id: 'a-222222', text: 'write the runbook', owner: 'bo', decisionId: 'd-1', opened: '2026-11-20', status: 'open' },
      ],
      questions: [
        { id: 'q-333333', text: 'who pays for the replicas?', askedBy: 'al', askedById: '42', decisionId: 'd-1', opened: '2026-11-20', status: 'open' },
      ],
      playbooks: [{ slug: 'release', name: 'Release', versions: [{ steps: ['tag the commit', 'run the deploy job'], date: '2026-11-20', decisionId: 'd-1' }] }],
    };
    fs.writeFileSync(path.join(dir(), '.minutes', 'context.json'), JSON.stringify(context, null, 2));
  }

  it('lists action items, questions and playbooks, closes one and answers one, without the model', async () => {
    seed();
    const r = await runCli(['chat', '--channel', 'ops'], {
      env: env(),
      cwd: world.tmp.dir,
      input: ['/actions', '/questions', '/playbooks', '/actions done a-111111', '/questions answer q-333333 the platform team pays', '/actions', '/questions'],
    });
    expect(r.code).toBe(0);
    const [actions, questions, playbooks, done, answered, actionsAfter, questionsAfter] = blocks(r.stdout);
    expect(actions).toMatch(/^Open action items \(2\)/);
    expect(actions).toContain('a-111111');
    expect(actions).toContain('set up the MySQL replicas');
    expect(questions).toMatch(/^Open questions \(1\)/);
    expect(questions).toContain('who pays for the replicas?');
    expect(playbooks).toMatch(/^Playbooks \(1\)/);
    expect(playbooks).toContain('1. tag the commit\n2. run the deploy job');
    // Not the owner's account, but the console's user is an admin.
    expect(done).toBe('Closed a-111111: set up the MySQL replicas');
    expect(answered).toMatch(/^Answered .*who pays for the replicas\?.*the platform team pays/);
    expect(actionsAfter).toMatch(/^Open action items \(1\)/);
    expect(actionsAfter).not.toContain('a-111111');
    expect(questionsAfter).toBe('No open questions in this channel.');
    const saved = JSON.parse(fs.readFileSync(path.join(dir(), '.minutes', 'context.json'), 'utf8'));
    expect(saved.actions[0]).toMatchObject({ id: 'a-111111', status: 'done' });
    expect(saved.questions[0]).toMatchObject({ status: 'answered', answer: 'the platform team pays' });
    expect(fs.readFileSync(path.join(dir(), 'CONTEXT.md'), 'utf8')).not.toContain('set up the MySQL replicas');
    expect(world.fake.requests).toHaveLength(0);
  });

  it('a close or an answer without its id says how; /help lists the three commands', async () => {
    seed();
    const r = await runCli(['chat', '--channel', 'ops'], {
      env: env(),
      cwd: world.tmp.dir,
      input: ['/actions done', '/questions answer', '/actions done a-999999', '/help'],
    });
    const [noId, noQuestion, unknown, help] = blocks(r.stdout);
    expect(noId).toMatch(/^error: usage: \/actions done <id>/);
    expect(noQuestion).toMatch(/^error: usage: \/questions answer <id> <answer>/);
    expect(unknown).toMatch(/^Nothing closed: /);
    for (const cmd of ['/actions', '/actions done <id>', '/questions', '/questions answer <id> <answer>', '/playbooks']) expect(help).toContain(cmd);
  });

  it('what needs Discord says what does it here: /condense and /resolve the command that condenses this channel, /thread a channel', async () => {
    seed();
    const r = await runCli(['chat', '--channel', 'ops'], {
      env: env(),
      cwd: world.tmp.dir,
      input: ['/condense the replicas', '/resolve', '/thread replicas', '/condensations'],
    });
    const [condense, resolve, thread, list] = blocks(r.stdout);
    const command = `minutes condense --channel-dir ${dir()} --apply`;
    expect(condense).toContain(command);
    expect(resolve).toContain(command);
    expect(thread).toMatch(/minutes chat --channel NAME/);
    expect(list).toBe('No condensations in this channel yet.');
    expect(world.fake.requests).toHaveLength(0);
  });
});
