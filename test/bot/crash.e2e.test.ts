import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { FakeRequest } from '../fakes/model/types';
import { BotHarness, startHarness, twoPeople } from '../helpers/botHarness';

function secretaryModel(req: FakeRequest): string {
  if (!/Secretary of a team/.test(req.system)) return 'ok';
  return JSON.stringify({
    topic: 'Backup policy',
    context: 'How long to keep backups.',
    decision: 'Backups are kept for 90 days',
    rationale: 'Compliance.',
    action_items: [],
    supersedes: [],
    constraints: [],
    current_state: 'Decided.',
  });
}

/**
 * The process killed at each step of a condensation: the next run completes the remaining steps,
 * finds its earlier post by the ledger marker, and never posts twice.
 */
describe.each(['posted', 'filed', 'context', 'memory'])('a bot killed after the "%s" step', (point) => {
  let h: BotHarness;
  afterEach(async () => {
    await h.close();
  });

  it('is completed by the next run without posting twice', async () => {
    let ids = { guild: '', channel: '', alice: '', bo: '' };
    h = await startHarness({
      launch: false,
      setup: (d) => {
        ids = twoPeople(d, 'ops');
      },
    });
    h.model.setHandler(secretaryModel);
    const child = spawn(process.execPath, [path.join(__dirname, 'fixtures/crash-bot.js'), JSON.stringify(h.settings), point], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d) => {
        if (String(d).includes('ready')) resolve();
      });
      child.once('exit', () => reject(new Error(`child exited before it was ready: ${err}`)));
    });
    const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_c, sig) => r(sig)));
    const thread = h.discord.createThread(ids.channel, { name: 'backups', ownerId: ids.alice });
    const first = h.discord.userSays(thread.id, ids.alice, 'How long do we keep backups?');
    h.discord.userSays(thread.id, ids.bo, '90 days, for compliance.');
    h.discord.react(thread.id, first.id, ids.alice, '📝');
    expect(await exited).toBe('SIGKILL');

    await h.launch();
    const dir = path.join(h.dataDir, ids.guild, ids.channel);
    const posts = () => h.discord.botMessagesIn(ids.channel).filter((m) => m.content.includes('📝 Condensation'));
    await h.discord.waitFor(
      () =>
        fs.existsSync(path.join(dir, 'HISTORY.md')) && /Backups are kept for 90 days/.test(fs.readFileSync(path.join(dir, 'HISTORY.md'), 'utf8'))
          ? true
          : undefined,
      60_000,
      'the resumed run to finish',
    );
    expect(posts()).toHaveLength(1);
    expect(h.discord.pinsIn(ids.channel)).toHaveLength(1);
    expect(fs.readdirSync(path.join(dir, 'condensations'))).toHaveLength(1);
    expect(fs.readFileSync(path.join(dir, 'CONTEXT.md'), 'utf8')).toContain('Backups are kept for 90 days');
    expect(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8').match(/Backups are kept for 90 days/g)).toHaveLength(1);
    // Two bot starts (a child process, then the harness) and a condensation: ~7 s idle, several times
    // that on a loaded machine (it passed 30 s once under a load average of 15).
  }, 90_000);
});
