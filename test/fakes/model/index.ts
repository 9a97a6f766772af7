/**
 * Fake Anthropic + OpenAI servers for tests and benches: real wire formats for the real SDKs,
 * prefix caching that is measured (not assumed), scripted replies and errors, recorded requests.
 *
 *   const fake = await startFakeModelServer({ latencyMs: 20 });
 *   fake.enqueue('hello', { error: { status: 429 }, retryAfterMs: 5 });
 *   // ANTHROPIC_BASE_URL = fake.anthropicBaseURL, OPENAI_BASE_URL = fake.openaiBaseURL
 *   ...
 *   await fake.close();
 */
export { startFakeModelServer, echoHandler, type FakeModelServer, type FakeModelServerOptions } from './server';
export { estimateTokens } from './tokens';
export type {
  FakeApi, FakeErrorReply, FakeErrorSpec, FakeHandler, FakeReply, FakeRequest, FakeTextReply, FakeUsage, RecordedRequest,
} from './types';

/** Scripted errors with the providers' usual shapes. */
export const fakeErrors = {
  rateLimited: (retryAfterMs = 10) => ({ error: { status: 429 }, retryAfterMs }),
  overloaded: (retryAfterMs?: number) => ({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' }, retryAfterMs }),
  serverError: (retryAfterMs?: number) => ({ error: { status: 500, message: 'Internal server error' }, retryAfterMs }),
  auth: () => ({ error: { status: 401, message: 'invalid x-api-key' } }),
  contextTooLong: () => ({ error: { status: 400, kind: 'context_too_long' as const } }),
};
