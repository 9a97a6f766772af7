import path from 'node:path';
import { runChat } from '../../src/cli/commands/chat';
import { DEFAULT_MODELS } from '../../src/llm/provider';
import { withCapturedIO } from '../helpers/cli';
import { withTmpAndFakeModel } from '../helpers/tmpAndFakeModel';

describe('console shutdown with a hung model', () => {
  const world = withTmpAndFakeModel();

  it('at the budget, in-flight requests are aborted and no request is sent after "exiting anyway"', async () => {
    // Chat answers; the upkeep that runs at end of input hangs on the model.
    world.fake.setHandler((req) => (req.model === DEFAULT_MODELS.anthropic.chat ? 'ok' : { text: '{}', delayMs: 60_000 }));
    const env = {
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: world.fake.anthropicBaseURL,
      MINUTES_DATA_DIR: path.join(world.tmp.dir, 'data'),
      LOG_FORMAT: 'json',
    };
    const t0 = Date.now();
    const r = await withCapturedIO((io) => runChat({ channel: 'team', shutdownBudgetMs: 2_000 }, io), {
      env,
      cwd: world.tmp.dir,
      input: ['we decided to ship on Friday', 'and Priya owns the release notes'],
    });
    const returnedAfter = Date.now() - t0;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/exiting anyway/);
    expect(returnedAfter).toBeLessThan(6_000);
    const sent = world.fake.requests.length;
    const side = world.fake.requests.filter((q) => q.model !== DEFAULT_MODELS.anthropic.chat);
    expect(side.length).toBeGreaterThan(0);
    // Give anything still scheduled the time to show itself.
    await new Promise((res) => setTimeout(res, 1_500));
    expect(world.fake.requests).toHaveLength(sent);
    expect(world.fake.requests.filter((q) => q.status === 0).every((q) => q.clientClosed)).toBe(true);
  }, 20_000);
});
