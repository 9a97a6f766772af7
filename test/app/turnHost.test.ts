import fs from 'node:fs';
import path from 'node:path';
import { startTurnWorker } from '../../src/app/turnHost';
import type { TurnServices } from '../../src/app/turnServices';
import type { TraceStage } from '../../src/app/probes';
import type { Settings } from '../../src/config/load';
import { ConfigFileSchema } from '../../src/config/schema';
import { ModelError } from '../../src/llm/errors';
import { ProviderConfigError } from '../../src/llm/provider';
import type { ChannelRef } from '../../src/memory/paths';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import { capturedLogger } from '../helpers/botHarness';
import { makeTmpDir } from '../helpers/tmp';

/** The bot's settings over a temp folder and the fake model (words only: no sentence model thread). */
function workerSettings(dir: string, fake: FakeModelServer): Settings {
  return {
    dataDir: path.join(dir, 'channels'),
    configFile: null,
    config: ConfigFileSchema.parse({ limits: { maxRetries: 0, requestsPerMinute: 0 } }),
    discord: { token: 'never-crosses-to-the-worker', apiUrl: 'http://127.0.0.1:1' },
    anthropic: { apiKey: 'test-key', baseURL: fake.anthropicBaseURL },
    openai: {},
    log: {},
    semantic: { mode: 'off', cacheDir: '' },
  };
}

/**
 * The turn worker (src/app/turnWorker.ts, run from dist/ as in production) behind the services the
 * Discord side uses: the real Anthropic SDK inside the worker, against the fake model server.
 */
describe('turn worker', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let fake: FakeModelServer;
  let services: TurnServices | undefined;
  const ref: ChannelRef = { kind: 'discord', guildId: '100', channelId: '200' };

  const settings = () => workerSettings(tmp.dir, fake);

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

  it('answers a turn in the worker, stores it there, and runs the channel commands against what it stored', async () => {
    const { logger, logs } = capturedLogger();
    const marks: { stage: TraceStage; at: number }[] = [];
    services = await startTurnWorker(settings(), logger, { probes: { trace: (_id, stage, at) => void marks.push({ stage, at }) } });
    const before = performance.now();
    let asked = 0;
    const reply = await services.engine.respond(ref, [{ id: 'm1', authorName: 'alice', content: 'what did we pick for the cache?', at: new Date() }], {
      onModelRequest: () => asked++,
    });
    const after = performance.now();
    expect(reply).toEqual({ text: expect.stringContaining('what did we pick for the cache?') });
    expect(asked).toBe(1);
    // The worker's marks arrive on this thread's clock (each thread has its own performance origin).
    expect(marks.map((m) => m.stage)).toEqual(['model-sent', 'model-done']);
    for (const m of marks) {
      expect(m.at).toBeGreaterThanOrEqual(before - 1);
      expect(m.at).toBeLessThanOrEqual(after + 1);
    }
    expect(await services.commands(ref, 'alice', { name: 'status' })).toContain('- conversation: 2 turns since the last compaction');
    expect(await services.commands(ref, 'alice', { name: 'new' })).toBe('Started a fresh conversation. SESSION.md and memory are kept.');
    expect(await services.engine.forgetMessage(ref, 'm1')).toBe(false);
    // The worker's lines reach this thread's logger (redacted and formatted there), the token never.
    expect(logs.some((l) => l.msg === 'model provider selected')).toBe(true);
    expect(JSON.stringify(logs)).not.toContain('never-crosses-to-the-worker');
    await services.close();
    services = undefined;
    const log = fs.readFileSync(path.join(tmp.dir, 'channels', '100', '200', 'log.jsonl'), 'utf8');
    expect(log).toContain('"type":"reply"');
  });

  it("writes log lines asked for in one turn of this thread's loop together, each before the reply to it, and every one by close", async () => {
    services = await startTurnWorker(settings(), capturedLogger().logger);
    const other: ChannelRef = { ...ref, channelId: '201' };
    const message = (id: string, content: string) => ({
      type: 'message' as const,
      id,
      at: new Date().toISOString(),
      author: { id: 'u1', name: 'alice' },
      content,
    });
    // Same tick: the lines travel together, and the turn asked right after them still comes after.
    void services.appendLog(ref, message('m1', 'first'));
    void services.appendLog(other, message('o1', 'elsewhere'));
    void services.appendLog(ref, message('m2', 'second'));
    await services.engine.respond(ref, [{ id: 'm2', authorName: 'alice', content: 'second', at: new Date() }]);
    void services.appendLog(ref, message('m3', 'after the reply'));
    await services.close();
    services = undefined;
    const lines = (channel: string) =>
      fs
        .readFileSync(path.join(tmp.dir, 'channels', '100', channel, 'log.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; id?: string });
    expect(lines('200').map((l) => l.id ?? l.type)).toEqual(['m1', 'm2', 'reply', 'm3']);
    expect(lines('201').map((l) => l.id)).toEqual(['o1']);
  });

  it('runs upkeep in the worker: a conversation over its token budget is compacted by a side call from there', async () => {
    services = await startTurnWorker(settings(), capturedLogger().logger, { upkeep: { tokenBudget: 10 } });
    await services.engine.respond(
      ref,
      [{ id: 'm1', authorName: 'alice', content: 'a message long enough to pass a budget of ten tokens', at: new Date() }],
      {},
    );
    const deadline = Date.now() + 10_000;
    while (fake.requests.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const [chat, side] = fake.requests;
    expect(chat.model).toBe(services.model.models.chat);
    expect(side.model).toBe(services.model.models.side);
    expect(side.lastUserText).toContain('a message long enough to pass a budget of ten tokens');
  });

  it('hands a failed model call back as the ModelError the reply words, with its line for the channel', async () => {
    services = await startTurnWorker(settings(), capturedLogger().logger);
    fake.enqueue({ error: { status: 429 }, retryAfterMs: 3_000 });
    const err = await services.engine.respond(ref, [{ id: 'm1', authorName: 'alice', content: 'hello', at: new Date() }], {}).catch((e) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).kind).toBe('rate_limited');
    expect((err as ModelError).userMessage()).toBe('The model provider is rate-limiting the bot; please try again in about 3 s.');
  });

  it("serves this thread's side calls through the worker's one client and counts their tokens there", async () => {
    services = await startTurnWorker(settings(), capturedLogger().logger);
    const res = await services.model.complete({ purpose: 'side', system: [{ text: 'summarise' }], messages: [{ role: 'user', content: 'side input' }] });
    expect(res.text).toContain('side input');
    expect(services.model.models.side).toBe(res.model);
    // A side task runs in a channel the bot already works in: its folder exists.
    fs.mkdirSync(path.join(tmp.dir, 'channels', '100', '200', '.minutes'), { recursive: true });
    await services.usage.add(ref, res.model, 'side', res.usage, new Date());
    await services.close();
    services = undefined;
    const usage = JSON.parse(fs.readFileSync(path.join(tmp.dir, 'channels', '100', '200', '.minutes', 'usage.json'), 'utf8'));
    expect(usage.byModel[`side:${res.model}`]).toMatchObject({ calls: 1, inputTokens: res.usage.inputTokens });
  });

  it("aborts a side call when the caller's signal does, with the caller's reason", async () => {
    services = await startTurnWorker(settings(), capturedLogger().logger);
    fake.setHandler(() => new Promise(() => undefined));
    const ac = new AbortController();
    const call = services.model.complete({ purpose: 'side', system: [{ text: 's' }], messages: [{ role: 'user', content: 'x' }], signal: ac.signal });
    await new Promise((r) => setTimeout(r, 100));
    const reason = new Error('the Secretary gave up');
    ac.abort(reason);
    await expect(call).rejects.toBe(reason);
  });

  it('refuses to start with the same one-line error as in this thread', async () => {
    const s = settings();
    const err = await startTurnWorker({ ...s, anthropic: {} }, capturedLogger().logger).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderConfigError);
    expect((err as Error).message).toMatch(/^No model provider configured: set ANTHROPIC_API_KEY/);
  });
});

describe('turn worker that dies', () => {
  it('fails what it was answering with one line, logs why, and a new worker answers the next message', async () => {
    const tmp = makeTmpDir();
    const fake = await startFakeModelServer();
    // The host's Worker, observed (not replaced): the test ends it as a crash would.
    const threads = jest.requireActual<typeof import('node:worker_threads')>('node:worker_threads');
    const RealWorker = threads.Worker;
    const started: InstanceType<typeof RealWorker>[] = [];
    const observed = function (...args: ConstructorParameters<typeof RealWorker>) {
      const w = new RealWorker(...args);
      started.push(w);
      return w;
    };
    const spy = jest
      .spyOn(threads as unknown as Record<'Worker', (...args: ConstructorParameters<typeof RealWorker>) => unknown>, 'Worker')
      .mockImplementation(observed);
    const { logger, logs } = capturedLogger();
    const services = await startTurnWorker(workerSettings(tmp.dir, fake), logger);
    const ref: ChannelRef = { kind: 'discord', guildId: '100', channelId: '200' };
    const ask = (id: string) => services.engine.respond(ref, [{ id, authorName: 'alice', content: `question ${id}`, at: new Date() }], {});
    try {
      expect(started).toHaveLength(1);
      fake.setHandler(() => new Promise(() => undefined));
      const hung = ask('m1');
      await new Promise((r) => setTimeout(r, 200));
      await started[0].terminate();
      await expect(hung).rejects.toThrow(/^the turn worker stopped \(exited with code 1\); this message was not answered$/);
      expect(logs.some((l) => l.msg === 'the turn worker stopped; starting a new one')).toBe(true);
      fake.setHandler((req) => `answer to ${req.lastUserText.slice(-2)}`);
      expect((await ask('m2')).text).toContain('answer to m2');
      expect(started).toHaveLength(2);
    } finally {
      spy.mockRestore();
      await services.close();
      await fake.close();
      tmp.cleanup();
    }
  });
});
