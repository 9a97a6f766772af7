import fs from 'node:fs';
import path from 'node:path';
import { startTurnWorkers } from '../../src/app/turnPool';
import { ownerOf } from '../../src/app/turnRouting';
import type { TurnServices } from '../../src/app/turnServices';
import type { Settings } from '../../src/config/load';
import { ConfigFileSchema } from '../../src/config/schema';
import type { ChannelRef } from '../../src/memory/paths';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import { capturedLogger } from '../helpers/botHarness';
import { makeTmpDir } from '../helpers/tmp';

/**
 * Two turn workers (src/app/turnPool.ts, the workers run from dist/ as in production), each
 * owning its channels, with the real Anthropic SDK in each against the fake model server.
 */
describe('two turn workers', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let fake: FakeModelServer;
  let services: TurnServices | undefined;

  const settings = (limits: object): Settings => ({
    dataDir: path.join(tmp.dir, 'channels'),
    configFile: null,
    config: ConfigFileSchema.parse({ limits: { maxRetries: 0, ...limits }, turnWorkers: 2 }),
    discord: { token: 'never-crosses-to-the-worker', apiUrl: 'http://127.0.0.1:1' },
    anthropic: { apiKey: 'test-key', baseURL: fake.anthropicBaseURL },
    openai: {},
    log: {},
    semantic: { mode: 'off', cacheDir: '' },
  });
  /** Channels of guild 100, the first `n` ids that worker `owner` of two owns. */
  const channelsOf = (owner: number, n: number): ChannelRef[] => {
    const out: ChannelRef[] = [];
    for (let i = 0; out.length < n; i++) {
      const ref: ChannelRef = { kind: 'discord', guildId: '100', channelId: String(500 + i) };
      if (ownerOf(ref, 2) === owner) out.push(ref);
    }
    return out;
  };

  beforeEach(async () => {
    tmp = makeTmpDir();
    fake = await startFakeModelServer();
  });
  afterEach(async () => {
    await services?.close();
    services = undefined;
    await fake.close();
    tmp.cleanup();
  });

  it('answers channels owned by either worker at once, and both keep to the one concurrency limit', async () => {
    services = await startTurnWorkers(settings({ requestsPerMinute: 0, concurrency: 1 }), capturedLogger().logger);
    let inFlight = 0;
    let most = 0;
    fake.setHandler(async (req) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 40));
      inFlight--;
      return `answer to ${req.lastUserText.slice(-2)}`;
    });
    const refs = [...channelsOf(0, 2), ...channelsOf(1, 2)];
    const replies = await Promise.all(
      refs.map((ref, i) => services!.engine.respond(ref, [{ id: `m${i}`, authorName: 'alice', content: `question q${i}`, at: new Date() }], {})),
    );
    expect(replies.map((r) => r.text)).toEqual(refs.map((_, i) => expect.stringContaining(`answer to q${i}`)));
    expect(most).toBe(1);
    // Each conversation was stored by the worker that answered it (folded into conversation.json at shutdown).
    await services.close();
    services = undefined;
    for (const [i, ref] of refs.entries()) {
      const stored = fs.readFileSync(path.join(tmp.dir, 'channels', '100', (ref as { channelId: string }).channelId, '.minutes', 'conversation.json'), 'utf8');
      expect(stored).toContain(`question q${i}`);
      expect(stored).toContain(`answer to q${i}`);
    }
  });

  it('without a concurrency limit the two workers call the model side by side', async () => {
    services = await startTurnWorkers(settings({ requestsPerMinute: 0, concurrency: 0 }), capturedLogger().logger);
    let inFlight = 0;
    let most = 0;
    fake.setHandler(async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 200));
      inFlight--;
      return 'ok';
    });
    const refs = [channelsOf(0, 1)[0], channelsOf(1, 1)[0]];
    await Promise.all(refs.map((ref, i) => services!.engine.respond(ref, [{ id: `m${i}`, authorName: 'alice', content: 'hi', at: new Date() }], {})));
    expect(most).toBe(2);
  });

  it("a channel's commands and usage go to the worker that holds its conversation", async () => {
    services = await startTurnWorkers(settings({ requestsPerMinute: 0 }), capturedLogger().logger);
    for (const ref of [channelsOf(0, 1)[0], channelsOf(1, 1)[0]]) {
      await services.engine.respond(ref, [{ id: 'm1', authorName: 'alice', content: 'remember the cache is redis', at: new Date() }], {});
      // A side call's tokens counted from this thread (the Secretary's) reach the same worker.
      await services.usage.add(ref, 'secretary-model', 'side', { inputTokens: 7, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 }, new Date());
      const status = await services.commands(ref, 'alice', { name: 'status' });
      // Counted where /status reads them: in that worker's memory, before any write.
      expect(status).toMatch(/chat:[^\n]*: 1 calls/);
      expect(status).toMatch(/side:secretary-model: 1 calls, 7 input tokens/);
    }
  });
});
