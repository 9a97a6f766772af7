import { buildAnthropicParams, keepLastBreakpoints } from '../../src/llm/anthropic';
import type { ModelClient, ModelRequest } from '../../src/llm/types';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import { anthropicClient, ask, filler } from './support';

describe('Anthropic adapter (real SDK against the fake)', () => {
  let fake: FakeModelServer;
  let client: ModelClient;

  beforeEach(async () => {
    fake = await startFakeModelServer();
    client = await anthropicClient(fake, { models: { chat: 'claude-chat-test', side: 'claude-side-test' } });
  });
  afterEach(async () => {
    await client.close();
    await fake.close();
  });

  it('completes a plain call with text, stop reason, usage and the chat model', async () => {
    fake.enqueue('Hi! How can I help?');
    const res = await client.complete(ask('hello'));
    expect(res).toEqual({
      text: 'Hi! How can I help?',
      stopReason: 'end',
      model: 'claude-chat-test',
      provider: 'anthropic',
      usage: { inputTokens: 7, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    const sent = fake.requests[0];
    expect(sent.body).toMatchObject({
      model: 'claude-chat-test',
      max_tokens: 2048,
      system: [{ type: 'text', text: 'You are a test bot.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
    });
    expect(sent.body.stream).toBeUndefined();
    expect(sent.headers.authorization).toBe('Bearer test-anthropic-key');
  });

  it('uses the side model and its token budget for side tasks', async () => {
    await client.complete(ask('summarise', { purpose: 'side', maxTokens: 300 }));
    expect(fake.requests[0].body).toMatchObject({ model: 'claude-side-test', max_tokens: 300 });
  });

  it('streams deltas to onText and returns the whole text', async () => {
    fake.enqueue('The quick brown fox');
    const deltas: string[] = [];
    const res = await client.complete(ask('go', { onText: (d) => deltas.push(d) }));
    expect(fake.requests[0].body.stream).toBe(true);
    expect(deltas.join('')).toBe('The quick brown fox');
    expect(deltas.length).toBeGreaterThan(1);
    expect(res.text).toBe('The quick brown fox');
    expect(res.usage.outputTokens).toBe(5);
  });

  it('maps max_tokens to stopReason max_tokens', async () => {
    fake.enqueue('x'.repeat(400));
    const res = await client.complete(ask('long', { maxTokens: 10 }));
    expect(res.stopReason).toBe('max_tokens');
  });

  it('puts cache_control exactly on flagged blocks and folds cache usage into input', async () => {
    const req = (question: string): ModelRequest => ({
      purpose: 'chat',
      system: [{ text: filler(800, 'soul') }, { text: filler(700, 'context'), cache: true }],
      messages: [
        { role: 'user', content: 'earlier question' },
        { role: 'assistant', content: 'earlier answer', cache: true },
        { role: 'user', content: question },
      ],
    });
    const first = await client.complete(req('now?'));
    const body = fake.requests[0].body;
    expect(body.system[0].cache_control).toBeUndefined();
    expect(body.system[1].cache_control).toEqual({ type: 'ephemeral' });
    expect(body.messages[0].content[0].cache_control).toBeUndefined();
    expect(body.messages[1].content[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(body.messages[2].content[0].cache_control).toBeUndefined();
    // 800 + 700 + 4 ("earlier question") + 4 ("earlier answer") written; "now?" (1) uncached
    expect(first.usage).toEqual({ inputTokens: 1509, outputTokens: expect.any(Number), cacheReadTokens: 0, cacheWriteTokens: 1508 });

    const second = await client.complete(req('and now?'));
    expect(second.usage).toMatchObject({ inputTokens: 1510, cacheReadTokens: 1508, cacheWriteTokens: 0 });
  });

  it('never sends more than four breakpoints: the latest four are kept', async () => {
    const req: ModelRequest = {
      purpose: 'chat',
      system: [
        { text: 's1', cache: true },
        { text: 's2', cache: true },
      ],
      messages: ['m1', 'm2', 'm3', 'm4'].map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content, cache: true })),
    };
    await client.complete(req); // the fake answers 400 to more than four, as the API does
    const body = fake.requests[0].body;
    const flags = [...body.system, ...body.messages.map((m: { content: unknown[] }) => m.content[0])].map((b) => Boolean(b.cache_control));
    expect(flags).toEqual([false, false, true, true, true, true]);
  });
});

describe('buildAnthropicParams', () => {
  it('omits an empty system prompt and keeps message order', () => {
    const p = buildAnthropicParams(
      {
        purpose: 'chat',
        system: [],
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'b' },
        ],
      },
      'm',
      5,
    );
    expect(p.system).toBeUndefined();
    expect(p.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('keepLastBreakpoints drops the earliest extras', () => {
    expect(keepLastBreakpoints([true, false, true, true, true, true], 4)).toEqual([false, false, true, true, true, true]);
    expect(keepLastBreakpoints([true, false, true], 4)).toEqual([true, false, true]);
  });
});
