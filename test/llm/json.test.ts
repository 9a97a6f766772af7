import { z } from 'zod';
import { ModelError } from '../../src/llm/errors';
import { completeJson, extractJson } from '../../src/llm/json';
import type { ModelClient, ModelRequest } from '../../src/llm/types';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import { anthropicClient, openaiClient } from './support';

const Facts = z.object({ facts: z.array(z.object({ text: z.string(), importance: z.number().int().min(1).max(5) })) });

const req: ModelRequest = {
  purpose: 'side',
  system: [{ text: 'You maintain MEMORY.md.', cache: true }],
  messages: [{ role: 'user', content: 'Extract durable facts from: we chose Postgres.' }],
};

describe.each(['anthropic', 'openai'] as const)('completeJson (%s)', (which) => {
  let fake: FakeModelServer;
  let client: ModelClient;

  beforeEach(async () => {
    fake = await startFakeModelServer();
    client = await (which === 'anthropic' ? anthropicClient : openaiClient)(fake);
  });
  afterEach(async () => {
    await client.close();
    await fake.close();
  });

  it('accepts a ```json fenced block after some prose, and says what it wants', async () => {
    fake.enqueue('Sure! Here it is:\n```json\n{"facts":[{"text":"DB is Postgres","importance":4}]}\n```\nAnything else?');
    const res = await completeJson(client, req, Facts);
    expect(res.value).toEqual({ facts: [{ text: 'DB is Postgres', importance: 4 }] });
    expect(res.attempts).toBe(1);
    expect(res.usage.outputTokens).toBeGreaterThan(0);
    // the instruction (with the schema) is the last system text, after the caller's own
    const system = fake.requests[0].system;
    expect(system.startsWith('You maintain MEMORY.md.')).toBe(true);
    expect(system).toContain('Reply with a single JSON value');
    expect(system).toContain('"importance"');
    expect(fake.requests[0].stream).toBe(false);
  });

  it('retries once with its bad reply and a one-line correction, then succeeds', async () => {
    fake.enqueue('{"facts":[{"text":"DB is Postgres","importance":"high"}]}', '{"facts":[{"text":"DB is Postgres","importance":4}]}');
    const res = await completeJson(client, req, Facts);
    expect(res.value.facts[0].importance).toBe(4);
    expect(res.attempts).toBe(2);
    const retry = fake.requests[1].messages;
    expect(retry).toHaveLength(3);
    expect(retry[1]).toEqual({ role: 'assistant', text: '{"facts":[{"text":"DB is Postgres","importance":"high"}]}' });
    expect(retry[2].role).toBe('user');
    expect(retry[2].text).toMatch(/^Your previous reply could not be used: the JSON does not match the schema: facts\.0\.importance: .*expected number/i);
    expect(retry[2].text).not.toContain('\n');
    // usage of both attempts is counted
    expect(res.usage.inputTokens).toBeGreaterThan(fake.requests[0].usage!.inputTokens);
  });

  it('names unparseable JSON in the correction', async () => {
    fake.enqueue('{"facts": [', '{"facts": []}');
    const res = await completeJson(client, req, Facts);
    expect(res.value).toEqual({ facts: [] });
    expect(fake.requests[1].lastUserText).toMatch(/not valid JSON/);
  });

  it('throws invalid_output after a second bad reply', async () => {
    fake.enqueue('I cannot do that.', 'Still no.');
    const err = await completeJson(client, req, Facts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).kind).toBe('invalid_output');
    expect((err as ModelError).message).toContain('contained no JSON');
    expect(fake.requests).toHaveLength(2);
  });
});

describe('extractJson', () => {
  it.each([
    ['bare', '{"a":1}', { a: 1 }],
    ['whitespace', '  [1,2]\n', [1, 2]],
    ['fenced without language', 'x\n```\n{"a":2}\n```', { a: 2 }],
    ['leading prose', 'Here you go: {"a":"}{"} hope that helps', { a: '}{' }],
    ['second fence is the JSON', '```sh\nls\n```\n```json\n{"b":true}\n```', { b: true }],
  ])('%s', (_name, text, value) => {
    expect(extractJson(text)).toEqual({ ok: true, value });
  });

  it('reports empty and JSON-free replies', () => {
    expect(extractJson('  ')).toEqual({ ok: false, problem: 'the reply was empty' });
    expect(extractJson('no json here')).toEqual({ ok: false, problem: 'the reply contained no JSON' });
  });
});
