import fs from 'node:fs';
import path from 'node:path';
import type { FakeRequest } from '../fakes/model/types';
import { runCli } from '../helpers/cli';
import { BotHarness, startHarness, twoPeople } from '../helpers/botHarness';

function secretaryModel(req: FakeRequest): string {
  if (!/Secretary of a team/.test(req.system)) return 'ok';
  return JSON.stringify({
    topic: 'Staging resets',
    context: 'c',
    decision: 'Staging is reset every Monday',
    rationale: 'r',
    action_items: [],
    supersedes: [],
    constraints: [],
    current_state: 's',
  });
}

describe('the audit with Discord', () => {
  let h: BotHarness;
  afterEach(async () => {
    await h.close();
  });

  it('finds a resolved thread with no condensation, queues it with --fix, and the bot condenses it once', async () => {
    let ids = { guild: '', channel: '', alice: '', bo: '' };
    h = await startHarness({
      launch: false,
      setup: (d) => {
        ids = twoPeople(d, 'infra');
      },
    });
    h.model.setHandler(secretaryModel);
    // The bot worked in this channel an hour ago; the thread was archived while it was down.
    const state = path.join(h.dataDir, ids.guild, ids.channel, '.minutes');
    fs.mkdirSync(state, { recursive: true });
    fs.writeFileSync(path.join(state, 'ledger.json'), JSON.stringify({ version: 1, firstRunAt: new Date(Date.now() - 3600_000).toISOString(), entries: {} }));
    const t = h.discord.createThread(ids.channel, { name: 'staging', ownerId: ids.alice });
    for (let i = 0; i < 6; i++) h.discord.userSays(t.id, i % 2 ? ids.bo : ids.alice, `point ${i} about staging resets`);
    h.discord.archiveThread(t.id);

    const env = { DISCORD_TOKEN: h.discord.botToken, DISCORD_API_URL: h.discord.apiUrl, MINUTES_DATA_DIR: h.dataDir };
    const report = await runCli(['audit'], { env, cwd: h.dataDir });
    expect(report.stdout).toMatch(/thread "staging" .* has no condensation/);
    expect(report.code).toBe(1);
    const fixed = await runCli(['audit', '--fix'], { env, cwd: h.dataDir });
    expect(fixed.stdout).toMatch(/queued/);
    expect(fs.existsSync(path.join(state, 'condense-queue.jsonl'))).toBe(true);

    await h.launch();
    const posts = () => h.discord.botMessagesIn(ids.channel).filter((m) => m.content.includes('📝 Condensation'));
    await h.discord.waitFor(() => (posts().length ? true : undefined), 10_000, 'the queued condensation');
    await new Promise((r) => setTimeout(r, 500));
    expect(posts()).toHaveLength(1);
    expect(posts()[0].content).toContain('Staging is reset every Monday');
  });
});
