import Anthropic from '@anthropic-ai/sdk';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import { filler } from './support';

/** The fake itself, driven by the real SDK: wire format, usage and the prefix cache semantics. */
describe('fake Anthropic server', () => {
  let fake: FakeModelServer;
  let clock = 0;
  let sdk: Anthropic;

  beforeEach(async () => {
    clock = 1_000_000;
    fake = await startFakeModelServer({ now: () => clock });
    sdk = new Anthropic({ apiKey: 'k', baseURL: fake.anthropicBaseURL, maxRetries: 0 });
  });
  afterEach(() => fake.close());

  const stable = filler(1500, 'stable');
  const request = (turns: Anthropic.MessageParam[], systemCache = true): Anthropic.MessageCreateParamsNonStreaming => ({
    model: 'claude-test',
    max_tokens: 100,
    system: [{ type: 'text', text: stable, ...(systemCache ? { cache_control: { type: 'ephemeral' as const } } : {}) }],
    messages: turns,
  });
  const user = (text: string): Anthropic.MessageParam => ({ role: 'user', content: text });

  it('answers JSON with usage fields and records the request', async () => {
    fake.enqueue('Hello there');
    const msg = await sdk.messages.create({ model: 'claude-test', max_tokens: 50, messages: [user('hi')] });
    expect(msg.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hello there' })]);
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.usage).toMatchObject({ input_tokens: 1, output_tokens: 3, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ api: 'anthropic', status: 200, lastUserText: 'hi', model: 'claude-test' });
    expect(fake.requests[0].headers.authorization).toBe('Bearer k');
  });

  it('streams SSE that the SDK accumulates, with usage', async () => {
    fake.enqueue('one two three');
    const deltas: string[] = [];
    const stream = sdk.messages.stream({ model: 'claude-test', max_tokens: 50, messages: [user('hi')] });
    stream.on('text', (d) => deltas.push(d));
    const msg = await stream.finalMessage();
    expect(deltas).toEqual(['one', ' two', ' three']);
    expect(msg.content[0]).toMatchObject({ type: 'text', text: 'one two three' });
    expect(msg.usage.output_tokens).toBe(4);
    expect(fake.requests[0].stream).toBe(true);
  });

  it('cuts replies longer than max_tokens and says so', async () => {
    fake.enqueue('a'.repeat(100));
    const msg = await sdk.messages.create({ model: 'claude-test', max_tokens: 5, messages: [user('hi')] });
    expect(msg.stop_reason).toBe('max_tokens');
    expect(msg.content[0]).toMatchObject({ text: 'a'.repeat(20) });
  });

  it('writes the prefix up to a breakpoint, then reads it on the next call', async () => {
    const first = await sdk.messages.create(request([user('first question')]));
    expect(first.usage.cache_creation_input_tokens).toBe(1500);
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(first.usage.input_tokens).toBe(4); // "first question" = 14 chars

    const second = await sdk.messages.create(request([user('another question')]));
    expect(second.usage.cache_read_input_tokens).toBe(1500);
    expect(second.usage.cache_creation_input_tokens).toBe(0);
    expect(second.usage.input_tokens).toBe(4);
  });

  it('reads the longest cached prefix and writes only the new part', async () => {
    const turns = [user('q1'), { role: 'assistant' as const, content: filler(300, 'a1') }];
    const withBreakpoint: Anthropic.MessageParam = {
      role: 'assistant',
      content: [{ type: 'text', text: filler(300, 'a1'), cache_control: { type: 'ephemeral' } }],
    };
    await sdk.messages.create(request([user('q1')]));
    const grown = await sdk.messages.create(request([user('q1'), withBreakpoint, user('q2')]));
    // the system prefix (1500) was cached; "q1" (1) + the answer (300) are newly written
    expect(grown.usage).toMatchObject({ cache_read_input_tokens: 1500, cache_creation_input_tokens: 301, input_tokens: 1 });
    const again = await sdk.messages.create(request([...turns, user('q3')]));
    // no breakpoint on the answer this time: lookback from the system breakpoint only
    expect(again.usage.cache_read_input_tokens).toBe(1500);
    // a breakpoint on a later turn looks back and finds the prefix written at the answer
    const q3: Anthropic.MessageParam = { role: 'user', content: [{ type: 'text', text: 'q3', cache_control: { type: 'ephemeral' } }] };
    const later = await sdk.messages.create(request([...turns, q3]));
    expect(later.usage).toMatchObject({ cache_read_input_tokens: 1801, cache_creation_input_tokens: 1, input_tokens: 0 });
  });

  it('forgets a prefix five minutes (fake clock) after its last use', async () => {
    await sdk.messages.create(request([user('q')]));
    clock += 4 * 60_000;
    expect((await sdk.messages.create(request([user('q')]))).usage.cache_read_input_tokens).toBe(1500);
    clock += 4 * 60_000; // 8 min after writing, but only 4 after the last hit, which renewed it
    expect((await sdk.messages.create(request([user('q')]))).usage.cache_read_input_tokens).toBe(1500);
    clock += 5 * 60_000 + 1;
    const expired = await sdk.messages.create(request([user('q')]));
    expect(expired.usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 1500 });
  });

  it('does not cache prefixes shorter than the minimum', async () => {
    const short = (): Anthropic.MessageCreateParamsNonStreaming => ({
      model: 'claude-test',
      max_tokens: 10,
      system: [{ type: 'text', text: filler(1000), cache_control: { type: 'ephemeral' } }],
      messages: [user('q')],
    });
    const a = await sdk.messages.create(short());
    const b = await sdk.messages.create(short());
    expect(a.usage.cache_creation_input_tokens).toBe(0);
    expect(b.usage.cache_read_input_tokens).toBe(0);
    expect(b.usage.input_tokens).toBe(1001);
  });

  it('honours a configured minimum cacheable length', async () => {
    await fake.close();
    fake = await startFakeModelServer({ minCacheableTokens: 100 });
    sdk = new Anthropic({ apiKey: 'k', baseURL: fake.anthropicBaseURL, maxRetries: 0 });
    const req = (): Anthropic.MessageCreateParamsNonStreaming => ({
      model: 'm',
      max_tokens: 10,
      system: [{ type: 'text', text: filler(200), cache_control: { type: 'ephemeral' } }],
      messages: [user('q')],
    });
    expect((await sdk.messages.create(req())).usage.cache_creation_input_tokens).toBe(200);
    expect((await sdk.messages.create(req())).usage.cache_read_input_tokens).toBe(200);
  });

  it('keys the cache on exact content and model', async () => {
    await sdk.messages.create(request([user('q')]));
    const changed = await sdk.messages.create({
      ...request([user('q')]),
      system: [{ type: 'text', text: `${stable}!`, cache_control: { type: 'ephemeral' } }],
    });
    expect(changed.usage.cache_read_input_tokens).toBe(0);
    const otherModel = await sdk.messages.create({ ...request([user('q')]), model: 'claude-other' });
    expect(otherModel.usage.cache_read_input_tokens).toBe(0);
  });

  it('rejects more than four cache_control blocks like the real API', async () => {
    const cc = { type: 'ephemeral' as const };
    await expect(
      sdk.messages.create({
        model: 'm',
        max_tokens: 10,
        system: [1, 2, 3, 4, 5].map((i) => ({ type: 'text' as const, text: `s${i}`, cache_control: cc })),
        messages: [user('q')],
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('A maximum of 4 blocks with cache_control') });
  });

  it('sends scripted errors with retry headers', async () => {
    fake.enqueue({ error: { status: 429 }, retryAfterMs: 7, retryAfterSeconds: 1 });
    const err = await sdk.messages.create({ model: 'm', max_tokens: 10, messages: [user('q')] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    const e = err as InstanceType<typeof Anthropic.RateLimitError>;
    expect(e.headers.get('retry-after-ms')).toBe('7');
    expect(e.headers.get('retry-after')).toBe('1');
    expect(e.type).toBe('rate_limit_error');
  });

  it('answers by handler when the queue is empty', async () => {
    fake.setHandler((req) => `you said ${req.lastUserText} under "${req.system}"`);
    const msg = await sdk.messages.create({ model: 'm', max_tokens: 50, system: 'SYS', messages: [user('ping')] });
    expect(msg.content[0]).toMatchObject({ text: 'you said ping under "SYS"' });
  });
});
