/** Scripted errors with the providers' usual shapes. */
export const fakeErrors = {
  rateLimited: (retryAfterMs = 10) => ({ error: { status: 429 }, retryAfterMs }),
  overloaded: (retryAfterMs?: number) => ({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' }, retryAfterMs }),
  serverError: (retryAfterMs?: number) => ({ error: { status: 500, message: 'Internal server error' }, retryAfterMs }),
  auth: () => ({ error: { status: 401, message: 'invalid x-api-key' } }),
  contextTooLong: () => ({ error: { status: 400, kind: 'context_too_long' as const } }),
};
