import fs from 'node:fs';
import path from 'node:path';
import type { Runtime } from '../../src/app/runtime';
import { ModelError } from '../../src/llm/errors';
import type { ChannelRef } from '../../src/memory/paths';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import { blocks, runCli } from '../helpers/cli';
import { testRuntime } from '../helpers/runtime';
import { makeTmpDir } from '../helpers/tmp';

/** One megabyte of an ordinary pasted log (words, so no secret detector fires on it). */
const MEGABYTE = 'GET /api/orders 200 in 14 ms from the staging gateway\n'.repeat(20_000).slice(0, 1_048_576);
const ref: ChannelRef = { kind: 'local', name: 'paste' };
const at = () => new Date('2026-11-21T09:00:00Z');

describe.each(['anthropic', 'openai'] as const)('%s: a message larger than the model window', (provider) => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let fake: FakeModelServer;
  let rt: Runtime | undefined;
  const conversationFile = () => path.join(rt!.store.paths(ref).stateDir, 'conversation.json');
  const chatRequests = () => fake.requests.filter((r) => r.lastUserText.includes('UTC] al:'));

  beforeEach(() => {
    tmp = makeTmpDir();
  });
  afterEach(async () => {
    await rt?.close();
    rt = undefined;
    await fake.close();
    tmp.cleanup();
  });

  it('is clipped up front, the reply says so in one line, the stored conversation stays small, and the next message works', async () => {
    // 20,000 tokens is about 80,000 characters: the megabyte is thirteen times the window.
    fake = await startFakeModelServer({ contextWindowTokens: 20_000 });
    fake.setHandler((req) => `read ${req.lastUserText.length} characters`);
    rt = await testRuntime(tmp.dir, fake, { provider });
    const first = await rt.engine.respond(ref, [{ id: '1', authorName: 'al', content: MEGABYTE, at: at() }]);
    expect(first.text).toMatch(
      /^read \d+ characters\n\n_\(Your message had 1,048,576 characters; only the first 8,000 were read\. Send a long text in parts, or an admin can raise conversation\.maxMessageChars\.\)_$/,
    );
    const sent = chatRequests()[0].lastUserText;
    expect(sent.length).toBeLessThan(8_200);
    expect(sent).toMatch(/\[… message clipped: 1,?040,?576 more characters not read\]$/);
    await rt.engine.idle();
    // The conversation on disk: its snapshot (if one was written yet) and the journal of turns stored since.
    const stored = [conversationFile(), rt.store.paths(ref).conversationJournal].filter((f) => fs.existsSync(f)).reduce((n, f) => n + fs.statSync(f).size, 0);
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(20_000);

    const next = await rt.engine.respond(ref, [{ id: '2', authorName: 'al', content: 'and what was slow?', at: at() }]);
    expect(next.text).toMatch(/^read \d+ characters$/);
    expect(fake.requests.every((r) => r.status === 200)).toBe(true);
  });

  it('still too long for a small window after compacting: one line, nothing of the turn stored, and the next message works', async () => {
    // 1,500 tokens: the instructions and a short message fit; 7,500 characters do not.
    fake = await startFakeModelServer({ contextWindowTokens: 1_500 });
    fake.setHandler(() => 'fine');
    rt = await testRuntime(tmp.dir, fake, { provider });
    const err = await rt.engine.respond(ref, [{ id: '1', authorName: 'al', content: MEGABYTE.slice(0, 7_500), at: at() }]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).userMessage()).toBe(
      "This is too long for the model even after compacting the conversation, and nothing of it was stored: send a shorter message (or an admin can lower conversation.maxMessageChars to fit the model's window).",
    );
    await rt.engine.idle();
    expect(fs.existsSync(conversationFile()) ? fs.readFileSync(conversationFile(), 'utf8') : '').not.toContain('staging gateway');
    const next = await rt.engine.respond(ref, [{ id: '2', authorName: 'al', content: 'hello again', at: at() }]);
    expect(next.text).toBe('fine');
  });
});

describe('console mode, OpenAI-compatible server', () => {
  it('a one-megabyte line is clipped with a note, and the next line is answered', async () => {
    const tmp = makeTmpDir();
    const fake = await startFakeModelServer({ contextWindowTokens: 20_000 });
    try {
      fake.setHandler((req) => `read ${req.lastUserText.length} characters`);
      const env = { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: fake.openaiBaseURL, MINUTES_DATA_DIR: path.join(tmp.dir, 'data') };
      const r = await runCli(['chat', '--channel', 'paste'], { env, cwd: tmp.dir, input: [MEGABYTE.replace(/\n/g, ' '), 'and what was slow?'] });
      const b = blocks(r.stdout);
      expect(b[0]).toMatch(/^read \d+ characters\n\n_\(Your message had 1,048,576 characters; only the first 8,000 were read\./);
      expect(b[1]).toMatch(/^read \d+ characters$/);
      const conv = path.join(tmp.dir, 'data', 'local', 'paste', '.minutes', 'conversation.json');
      expect(fs.statSync(conv).size).toBeLessThan(20_000);
    } finally {
      await fake.close();
      tmp.cleanup();
    }
  });
});
