import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ModelError, parseRetryAfter, toModelError, type ModelErrorKind } from '../../src/llm/errors';
import { redactSecrets } from '../../src/shared/secrets';

const h = (init: Record<string, string>) => new Headers(init);

describe('toModelError', () => {
  const anthropic = (status: number, type: string, message: string, headers: Record<string, string> = {}) =>
    Anthropic.APIError.generate(status, { type: 'error', error: { type, message } }, undefined, h(headers));
  const openai = (status: number, code: string | null, message: string) =>
    OpenAI.APIError.generate(status, { error: { message, type: 'invalid_request_error', code, param: null } }, undefined, h({}));

  it.each<[string, unknown, ModelErrorKind]>([
    ['anthropic 429', anthropic(429, 'rate_limit_error', 'slow down'), 'rate_limited'],
    ['anthropic 401', anthropic(401, 'authentication_error', 'invalid x-api-key'), 'auth'],
    ['anthropic 403', anthropic(403, 'permission_error', 'no'), 'auth'],
    ['anthropic 400 prompt too long', anthropic(400, 'invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'), 'context_too_long'],
    ['anthropic 400 other', anthropic(400, 'invalid_request_error', 'messages: roles must alternate'), 'bad_request'],
    ['anthropic 529', anthropic(529, 'overloaded_error', 'Overloaded'), 'unavailable'],
    ['anthropic 500', anthropic(500, 'api_error', 'oops'), 'unavailable'],
    ['openai context_length_exceeded', openai(400, 'context_length_exceeded', "This model's maximum context length is 8192 tokens"), 'context_too_long'],
    ['openai 404 model', openai(404, 'model_not_found', 'no such model'), 'bad_request'],
    ['openai 503', openai(503, null, 'busy'), 'unavailable'],
    ['openai connection', new OpenAI.APIConnectionError({ message: 'Connection error.' }), 'unavailable'],
    ['anthropic timeout', new Anthropic.APIConnectionTimeoutError(), 'timeout'],
  ])('%s → %s', (_name, err, kind) => {
    expect(toModelError(err, 'anthropic')?.kind).toBe(kind);
  });

  it('carries retry-after from the headers', () => {
    expect(toModelError(anthropic(429, 'rate_limit_error', 'x', { 'retry-after': '3' }), 'anthropic')?.retryAfterMs).toBe(3000);
  });

  it('leaves our own bugs and user aborts alone', () => {
    expect(toModelError(new TypeError('x is undefined'), 'openai')).toBeUndefined();
    expect(toModelError(new Anthropic.APIUserAbortError(), 'anthropic')).toBeUndefined();
  });
});

describe('ModelError', () => {
  it('has a one-line user message for every kind', () => {
    const kinds: ModelErrorKind[] = ['rate_limited', 'auth', 'bad_request', 'context_too_long', 'unavailable', 'timeout', 'invalid_output'];
    for (const kind of kinds) {
      const msg = new ModelError(kind, 'details\nwith 500 status').userMessage();
      expect(msg).toMatch(/^[^\n]{10,160}$/);
      expect(msg).not.toContain('500');
    }
  });

  it('keeps its message on one line with secrets redacted', () => {
    const e = new ModelError('auth', 'bad key sk-proj-abcdefghijklmn\nAuthorization: Bearer abcdefghijklmnop');
    expect(e.message).toBe('bad key [redacted] Authorization: Bearer [redacted]');
  });
});

describe('parseRetryAfter', () => {
  it('prefers retry-after-ms, then seconds, then an HTTP date', () => {
    expect(parseRetryAfter(h({ 'retry-after-ms': '12.5', 'retry-after': '9' }))).toBe(13);
    expect(parseRetryAfter(h({ 'retry-after': '1.5' }))).toBe(1500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter(h({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)).toBe(30_000);
    expect(parseRetryAfter(h({}))).toBeUndefined();
  });

  it('redactSecrets leaves ordinary text alone', () => {
    expect(redactSecrets('prompt is too long')).toBe('prompt is too long');
  });
});
