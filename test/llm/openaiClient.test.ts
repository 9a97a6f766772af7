import { buildOpenAIParams } from '../../src/llm/openai';
import type { ModelClient, ModelRequest } from '../../src/llm/types';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import { ask, filler, openaiClient } from './support';

describe('OpenAI adapter (real SDK against the fake)', () => {
  let fake: FakeModelServer;
  let client: ModelClient | undefined;

  beforeEach(async () => {
    fake = await startFakeModelServer();
  });
  afterEach(async () => {
    await client?.close();
    await fake.close();
  });

  it('joins system blocks into one system message, then the turns in order', async () => {
    client = await openaiClient(fake, { models: { chat: 'gpt-chat', side: 'gpt-side' } });
    fake.enqueue('fine');
    const res = await client.complete({
      purpose: 'chat',
      temperature: 0.2,
      system: [{ text: 'A' }, { text: 'B', cache: true }],
      messages: [
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: 'a1' },
        { role: 'user', content: 'q2' },
      ],
    });
    expect(fake.requests[0].body).toEqual({
      model: 'gpt-chat',
      messages: [
        { role: 'system', content: 'A\n\nB' },
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: 'a1' },
        { role: 'user', content: 'q2' },
      ],
      max_tokens: 2048, // custom base URL: the field compatible servers understand
      temperature: 0.2,
    });
    expect(res).toMatchObject({ text: 'fine', stopReason: 'end', provider: 'openai', model: 'gpt-chat' });
    expect(fake.requests[0].headers.authorization).toBe('Bearer test-openai-key');
  });

  it('streams with include_usage and folds usage', async () => {
    client = await openaiClient(fake);
    fake.enqueue('alpha beta gamma');
    const deltas: string[] = [];
    const res = await client.complete(ask('go', { onText: (d) => deltas.push(d) }));
    expect(fake.requests[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(deltas).toEqual(['alpha', ' beta', ' gamma']);
    expect(res.text).toBe('alpha beta gamma');
    expect(res.usage.outputTokens).toBe(4);
    expect(res.usage.inputTokens).toBeGreaterThan(0);
  });

  it('reports cached prompt tokens as cache reads, included in input', async () => {
    client = await openaiClient(fake);
    const req = (q: string): ModelRequest => ({ purpose: 'chat', system: [{ text: filler(2000), cache: true }], messages: [{ role: 'user', content: q }] });
    await client.complete(req('one'));
    const second = await client.complete(req('two'));
    expect(second.usage.cacheReadTokens).toBe(1920);
    expect(second.usage.cacheWriteTokens).toBe(0);
    expect(second.usage.inputTokens).toBeGreaterThan(2000);
  });

  it('works keyless with only OPENAI_BASE_URL (Ollama, LM Studio) using a placeholder key', async () => {
    client = await openaiClient(fake, { apiKey: '' });
    await client.complete(ask('hi'));
    expect(fake.requests[0].headers.authorization).toBe('Bearer not-needed');
  });

  it('maps finish_reason length to max_tokens', async () => {
    client = await openaiClient(fake);
    fake.enqueue('y'.repeat(400));
    expect((await client.complete(ask('long', { maxTokens: 5 }))).stopReason).toBe('max_tokens');
  });
});

describe('buildOpenAIParams', () => {
  it('uses max_completion_tokens when asked and leaves temperature out unless given', () => {
    const p = buildOpenAIParams(ask('q'), 'gpt', 7, 'max_completion_tokens');
    expect(p).toEqual({
      model: 'gpt',
      messages: [
        { role: 'system', content: 'You are a test bot.' },
        { role: 'user', content: 'q' },
      ],
      max_completion_tokens: 7,
    });
  });
});
