import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { connectionProblem, displayUrl } from '../shared/netErrors';
import { redactSecrets } from '../shared/secrets';
import type { ProviderName } from './types';

/**
 * What went wrong, at the granularity the bot acts on: retry (rate_limited, unavailable), tell an
 * admin (auth), tell the user to start over (context_too_long), or report a bug (bad_request).
 */
export type ModelErrorKind = 'rate_limited' | 'auth' | 'bad_request' | 'context_too_long' | 'unavailable' | 'timeout' | 'invalid_output';

export interface ModelErrorOptions {
  provider?: ProviderName;
  status?: number;
  /** How long the provider asked us to wait, from `retry-after-ms` / `retry-after`. */
  retryAfterMs?: number;
  /** Overrides the kind's default, e.g. an overload after part of a reply was already streamed. */
  retryable?: boolean;
  /** The one line a person sees instead of the kind's default: what happened and what to check. */
  hint?: string;
  /** What the server sent instead of an answer, briefly (operators only: never in userMessage). */
  received?: string;
  cause?: unknown;
}

const USER_MESSAGES: Record<ModelErrorKind, string> = {
  rate_limited: 'The model provider is rate-limiting the bot right now; please try again shortly.',
  auth: "The model provider rejected the bot's credentials; an admin needs to check the API key or account.",
  bad_request: 'The model provider rejected the request; this looks like a bug, see the logs.',
  context_too_long: 'This conversation is too long for the model; start a fresh one (e.g. with /new).',
  unavailable: 'The model provider is unavailable or overloaded right now; please try again in a minute.',
  timeout: 'The model took too long to answer; please try again.',
  invalid_output: 'The model answered in a form the bot could not use; please try again.',
};

export class ModelError extends Error {
  override readonly name = 'ModelError';
  readonly kind: ModelErrorKind;
  readonly provider?: ProviderName;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly #retryable?: boolean;
  /** What happened and what to check, for a person (see ModelErrorOptions.hint). */
  readonly hint?: string;
  /** See ModelErrorOptions.received. */
  readonly received?: string;

  constructor(kind: ModelErrorKind, message: string, opts: ModelErrorOptions = {}) {
    super(oneLine(redactSecrets(message)), opts.cause === undefined ? undefined : { cause: opts.cause });
    this.kind = kind;
    this.provider = opts.provider;
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
    this.#retryable = opts.retryable;
    this.hint = opts.hint === undefined ? undefined : oneLine(redactSecrets(opts.hint));
    this.received = opts.received === undefined ? undefined : oneLine(redactSecrets(opts.received));
  }

  /** Worth another attempt after a pause. Timeouts are not: a retry would double the user's wait. */
  get retryable(): boolean {
    return this.#retryable ?? (this.kind === 'rate_limited' || this.kind === 'unavailable');
  }

  /** One line that is safe to show in a Discord channel: no status codes, bodies or keys. */
  userMessage(): string {
    if (this.hint) return this.hint;
    if (this.kind === 'rate_limited' && this.retryAfterMs !== undefined && this.retryAfterMs >= 1000) {
      return `The model provider is rate-limiting the bot; please try again in about ${Math.ceil(this.retryAfterMs / 1000)} s.`;
    }
    return USER_MESSAGES[this.kind];
  }
}

/**
 * Maps an error thrown by either SDK to a ModelError. Returns undefined for anything else, so
 * programming errors in our own code surface as themselves instead of as "provider unavailable".
 * `baseURL` (the server the SDK talked to) is named when nothing answered there.
 */
export function toModelError(err: unknown, provider: ProviderName, baseURL?: string): ModelError | undefined {
  if (err instanceof ModelError) return err;
  if (err instanceof Anthropic.APIConnectionTimeoutError || err instanceof OpenAI.APIConnectionTimeoutError) {
    return new ModelError('timeout', `${provider}: ${err.message}`, { provider, cause: err });
  }
  if (err instanceof Anthropic.APIUserAbortError || err instanceof OpenAI.APIUserAbortError) return undefined;
  if (err instanceof Anthropic.APIConnectionError || err instanceof OpenAI.APIConnectionError) return connectionFailed(err, provider, baseURL);
  const broken = brokenResponse(err, provider);
  if (broken) return broken;
  if (err instanceof Anthropic.APIError) {
    return classify(provider, err, { status: err.status, type: err.type, code: err.errorCode, headers: err.headers });
  }
  if (err instanceof OpenAI.APIError) {
    return classify(provider, err, { status: err.status, type: err.type, code: err.code, headers: err.headers });
  }
  return undefined;
}

/** How a person names the provider, and the variable that points the bot at it. */
export function providerWords(provider: ProviderName): { name: string; urlVar: string } {
  return provider === 'anthropic' ? { name: 'Anthropic', urlVar: 'ANTHROPIC_BASE_URL' } : { name: 'The OpenAI-compatible server', urlVar: 'OPENAI_BASE_URL' };
}

/**
 * Nothing answered: the SDK says only "Connection error.", so the server and the socket's reason
 * (connection refused, host not found, …) are named. Still retried: a local server may be starting.
 */
function connectionFailed(err: Error, provider: ProviderName, baseURL: string | undefined): ModelError {
  const { name, urlVar } = providerWords(provider);
  const why = connectionProblem(err, baseURL);
  if (!baseURL && !why) return new ModelError('unavailable', `${provider}: ${err.message}`, { provider, cause: err });
  const where = baseURL ? ` at ${displayUrl(baseURL)}` : '';
  const reason = why ?? err.message.replace(/[.\s]+$/, '');
  return new ModelError('unavailable', `${provider}: could not connect to ${baseURL ? displayUrl(baseURL) : 'the server'}: ${reason}`, {
    provider,
    cause: err,
    hint: `Could not connect to ${name.replace(/^The /, 'the ')}${where}: ${reason}; check ${urlVar} and that the server is running, then try again.`,
  });
}

/**
 * A 200 whose body is not the provider's response ({}, an event stream to a plain call, an HTML
 * page from a proxy). Retried like a 5xx: a proxy's hiccup passes; a wrong URL is named. `body`,
 * when known, is quoted (briefly) in the message for the operator, never in the hint people see.
 */
export function malformedResponse(provider: ProviderName, what: string, body?: unknown): ModelError {
  const { name, urlVar } = providerWords(provider);
  const received = body === undefined ? undefined : bodySnippet(body);
  return new ModelError('unavailable', `${provider}: the response was ${what}${received ? `: ${received}` : ''}`, {
    provider,
    received,
    hint:
      `${name} sent an answer the bot could not read (${what}); check that ${urlVar} points at the provider's API ` +
      `(Anthropic without /v1, OpenAI-compatible with /v1) and that no proxy rewrites it, then try again.`,
  });
}

/** What came back, on one short line: `{}`, `{"status":"ok"}`, `<html>…`. */
function bodySnippet(body: unknown): string {
  let text: string;
  try {
    text = typeof body === 'string' ? body : (JSON.stringify(body) ?? String(body));
  } catch {
    text = String(body);
  }
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat || '(empty)';
}

/**
 * Failures below the SDK's own error types: the connection dropped while the body was read (undici's
 * "terminated"), or a body that is not JSON (the SDK's JSON.parse). Their raw messages are not fit
 * to show (a parser error quotes the body, NUL bytes and all).
 */
function brokenResponse(err: unknown, provider: ProviderName): ModelError | undefined {
  // By name, not instanceof: fetch's errors come from Node's own realm, which need not be ours.
  if (!err || typeof err !== 'object') return undefined;
  const e = err as { name?: unknown; message?: unknown };
  if (cutShort(err)) {
    const { name, urlVar } = providerWords(provider);
    return new ModelError('unavailable', `${provider}: the connection closed in the middle of the answer`, {
      provider,
      cause: err,
      hint: `${name} closed the connection in the middle of its answer; check the network and any proxy at ${urlVar}, then try again.`,
    });
  }
  if (e.name === 'SyntaxError') return malformedResponse(provider, 'not JSON');
  return undefined;
}

/**
 * fetch's "terminated" (or the socket's reset) anywhere in the cause chain: Anthropic's stream
 * helper rewraps it as AnthropicError("terminated") or ("TypeError: terminated"), keeping the
 * original as its cause.
 */
function cutShort(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { message, code } = e as { message?: unknown; code?: unknown };
    if (typeof message === 'string' && /^(TypeError: )?terminated$/.test(message)) return true;
    if (typeof code === 'string' && /^UND_ERR_SOCKET|^ECONNRESET$/.test(code)) return true;
  }
  return false;
}

interface ErrorFacts {
  status: number | undefined;
  type: string | null | undefined;
  code: string | null | undefined;
  headers: Headers | undefined;
}

const CONTEXT_TOO_LONG = /prompt is too long|context length|context window|context_length_exceeded|too many tokens/i;

/**
 * The provider's own explanation. The Anthropic SDK's message is the status and the raw JSON body
 * ("401 {\"type\":\"error\",…}"); both SDKs keep the parsed body on `error`.
 */
function providerSaid(err: Error): string {
  const body = (err as { error?: { error?: { message?: unknown }; message?: unknown } }).error;
  const said = body?.error?.message ?? body?.message;
  return typeof said === 'string' && said.trim() ? said.trim() : err.message;
}

function classify(provider: ProviderName, err: Error, f: ErrorFacts): ModelError {
  const opts: ModelErrorOptions = { provider, status: f.status, cause: err };
  const label = `${provider}${f.status ? ` ${f.status}` : ''}${f.type ? ` ${f.type}` : ''}: ${providerSaid(err)}`;
  const s = f.status;
  if (f.code === 'context_length_exceeded' || s === 413 || ((s === 400 || s === undefined) && CONTEXT_TOO_LONG.test(err.message))) {
    return new ModelError('context_too_long', label, opts);
  }
  if (s === 429 || f.type === 'rate_limit_error') {
    return new ModelError('rate_limited', label, { ...opts, retryAfterMs: parseRetryAfter(f.headers) });
  }
  if (s === 401 || s === 402 || s === 403 || f.type === 'authentication_error' || f.type === 'permission_error' || f.type === 'billing_error') {
    return new ModelError('auth', label, opts);
  }
  // 529 is Anthropic's "overloaded"; 408 is the server giving up on a slow request. Both pass.
  if (s === undefined || s >= 500 || s === 408 || f.type === 'overloaded_error') {
    return new ModelError('unavailable', label, { ...opts, retryAfterMs: parseRetryAfter(f.headers) });
  }
  return new ModelError('bad_request', label, opts);
}

/** `retry-after-ms` (milliseconds, OpenAI/Anthropic extension) wins over `retry-after` (seconds or HTTP date). */
export function parseRetryAfter(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  const raw = headers.get('retry-after');
  if (raw === null) return undefined;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** Defence in depth: SDK messages carry response bodies, and a proxy could echo a key back. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 400 ? `${flat.slice(0, 399)}…` : flat;
}
