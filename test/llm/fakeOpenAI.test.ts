import OpenAI from 'openai';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import { filler } from './support';

describe('fake OpenAI server', () => {
  let fake: FakeModelServer;
  let sdk: OpenAI;

  beforeEach(async () => {
    fake = await startFakeModelServer();
    sdk = new OpenAI({ apiKey: 'k', baseURL: fake.openaiBaseURL, maxRetries: 0 });
  });
  afterEach(() => fake.close());

  const user = (content: string) => ({ role: 'user' as const, content });

  it('answers chat completions with usage', async () => {
    fake.enqueue('Hello there');
    const res = await sdk.chat.completions.create({ model: 'gpt-test', messages: [user('hi')] });
    expect(res.choices[0].message.content).toBe('Hello there');
    expect(res.choices[0].finish_reason).toBe('stop');
    expect(res.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 0 } });
    expect(fake.requests[0]).toMatchObject({ api: 'openai', path: '/v1/chat/completions', status: 200 });
    expect(fake.requests[0].headers.authorization).toBe('Bearer k');
  });

  it('streams data-only SSE ending in [DONE], with a usage chunk on request', async () => {
    fake.enqueue('one two');
    const stream = await sdk.chat.completions.create({ model: 'm', messages: [user('hi')], stream: true, stream_options: { include_usage: true } });
    const deltas: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined | null;
    let finish: string | null = null;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const c = chunk.choices[0];
      if (c?.delta.content) deltas.push(c.delta.content);
      if (c?.finish_reason) finish = c.finish_reason;
    }
    expect(deltas).toEqual(['one', ' two']);
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ completion_tokens: 2 });
  });

  it('reports automatic prefix caching in 128-token steps from 1024', async () => {
    const system = { role: 'system' as const, content: filler(1500) };
    const first = await sdk.chat.completions.create({ model: 'm', messages: [system, user('first')] });
    expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    const second = await sdk.chat.completions.create({ model: 'm', messages: [system, user('second')] });
    // the shared beginning is "<|system|>" + 1500 tokens of text (~1503 tokens): largest step below is 1408
    expect(second.usage?.prompt_tokens_details?.cached_tokens).toBe(1408);
    expect(second.usage?.prompt_tokens).toBeGreaterThan(1500); // prompt_tokens includes the cached part
    const other = await sdk.chat.completions.create({ model: 'm', messages: [{ role: 'system', content: `!${filler(1500)}` }, user('x')] });
    expect(other.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
  });

  it('does not cache prompts under 1024 tokens', async () => {
    const msgs = [{ role: 'system' as const, content: filler(900) }, user('q')];
    await sdk.chat.completions.create({ model: 'm', messages: msgs });
    const again = await sdk.chat.completions.create({ model: 'm', messages: msgs });
    expect(again.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
  });

  it('sends OpenAI-shaped errors, including context_length_exceeded', async () => {
    fake.enqueue({ error: { status: 400, kind: 'context_too_long' } });
    const err = (await sdk.chat.completions.create({ model: 'm', messages: [user('q')] }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.code).toBe('context_length_exceeded');
  });

  it('rejects a wrong key with 401 when configured with one', async () => {
    await fake.close();
    fake = await startFakeModelServer({ apiKey: 'right' });
    const wrong = new OpenAI({ apiKey: 'wrong', baseURL: fake.openaiBaseURL, maxRetries: 0 });
    await expect(wrong.chat.completions.create({ model: 'm', messages: [user('q')] })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
