import type { Logger } from '../log/logger';
import type { ProviderAdapter } from './adapter';
import { createAnthropicAdapter } from './anthropic';
import { createClientCore } from './client';
import { createLimiter, redactUrl, type LimiterConfig } from './limiter';
import { createOpenAIAdapter, type OpenAIAdapterOptions } from './openai';
import type { RetryPolicy, Sleep } from './retry';
import type { ModelClient, ProviderName } from './types';

export type Env = Record<string, string | undefined>;

export const DEFAULT_MODELS: Record<ProviderName, { chat: string; side: string }> = {
  anthropic: { chat: 'claude-sonnet-5-5', side: 'claude-haiku-5-5' },
  openai: { chat: 'gpt-5.4', side: 'gpt-5.4-mini' },
};

/** Discord caps a message at 2,000 characters; side tasks (summaries, JSON) need more room. */
export const DEFAULT_MAX_TOKENS = { chat: 2_048, side: 4_096 };
export const DEFAULT_TIMEOUT_MS = 120_000;

export class ProviderConfigError extends Error {
  override readonly name = 'ProviderConfigError';
}

export interface ProviderChoice {
  provider: ProviderName;
  /** Why, in words fit for a log line. Never contains a key. */
  reason: string;
}

/**
 * With no configured choice: Anthropic if ANTHROPIC_API_KEY is set, otherwise an OpenAI-compatible
 * server if OPENAI_API_KEY or OPENAI_BASE_URL is set. A configured choice wins but must have its
 * credentials. Throws ProviderConfigError with a one-line message otherwise.
 */
export function selectProvider(opts: { env: Env; configured?: ProviderName }): ProviderChoice {
  const has = (name: string) => Boolean(opts.env[name]?.trim());
  const openaiWhy = () =>
    has('OPENAI_API_KEY')
      ? `OPENAI_API_KEY is set${has('OPENAI_BASE_URL') ? ` (server ${redactUrl(opts.env.OPENAI_BASE_URL!.trim())})` : ''}`
      : `OPENAI_BASE_URL is set (keyless OpenAI-compatible server ${redactUrl(opts.env.OPENAI_BASE_URL!.trim())})`;
  if (opts.configured === 'anthropic') {
    if (!has('ANTHROPIC_API_KEY')) throw new ProviderConfigError("The configured model provider is 'anthropic' but ANTHROPIC_API_KEY is not set.");
    return { provider: 'anthropic', reason: 'configured; ANTHROPIC_API_KEY is set' };
  }
  if (opts.configured === 'openai') {
    if (!has('OPENAI_API_KEY') && !has('OPENAI_BASE_URL')) {
      throw new ProviderConfigError("The configured model provider is 'openai' but neither OPENAI_API_KEY nor OPENAI_BASE_URL is set.");
    }
    return { provider: 'openai', reason: `configured; ${openaiWhy()}` };
  }
  if (opts.configured !== undefined) {
    throw new ProviderConfigError(`Unknown model provider '${String(opts.configured)}'; use 'anthropic' or 'openai'.`);
  }
  if (has('ANTHROPIC_API_KEY')) return { provider: 'anthropic', reason: 'ANTHROPIC_API_KEY is set' };
  if (has('OPENAI_API_KEY') || has('OPENAI_BASE_URL')) return { provider: 'openai', reason: openaiWhy() };
  throw new ProviderConfigError(
    'No model provider configured: set ANTHROPIC_API_KEY, or OPENAI_API_KEY and/or OPENAI_BASE_URL (e.g. http://localhost:11434/v1 for Ollama).',
  );
}

export interface CreateModelClientOptions {
  logger: Logger;
  /**
   * Where keys and base URLs come from: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OPENAI_API_KEY,
   * OPENAI_BASE_URL, and REDIS_URL when limits.redisUrl is not given. Required, so nothing reads
   * process.env behind the caller's back (tests pass their own).
   */
  env: Env;
  provider?: ProviderName;
  models?: { chat?: string; side?: string };
  maxTokens?: { chat?: number; side?: number };
  limits?: LimiterConfig;
  retry?: Partial<RetryPolicy>;
  timeoutMs?: number;
  openai?: Pick<OpenAIAdapterOptions, 'maxTokensField' | 'streamUsage'>;
  /** For tests: no real waiting between retries. */
  sleep?: Sleep;
  random?: () => number;
}

/** Picks the provider, builds its adapter and limiter (connecting to Redis if configured). */
export async function createModelClient(opts: CreateModelClientOptions): Promise<ModelClient> {
  const { env, logger } = opts;
  const choice = selectProvider({ env, configured: opts.provider });
  const defaults = DEFAULT_MODELS[choice.provider];
  const models = { chat: opts.models?.chat || defaults.chat, side: opts.models?.side || defaults.side };
  const adapter = buildAdapter(choice.provider, env, opts);
  logger.info({ provider: choice.provider, reason: choice.reason, models }, 'model provider selected');
  if (choice.provider === 'openai' && env.OPENAI_BASE_URL?.trim() && !(opts.models?.chat && opts.models?.side)) {
    logger.warn({ models }, "OPENAI_BASE_URL is set but chat/side models are not both configured; the server may not know OpenAI's model names");
  }
  const limits: LimiterConfig = { ...opts.limits, redisUrl: opts.limits?.redisUrl ?? (env.REDIS_URL?.trim() || undefined) };
  const limiter = await createLimiter({ provider: choice.provider, config: limits, logger });
  return createClientCore({
    adapter,
    limiter,
    models,
    maxTokens: { chat: opts.maxTokens?.chat ?? DEFAULT_MAX_TOKENS.chat, side: opts.maxTokens?.side ?? DEFAULT_MAX_TOKENS.side },
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retry: opts.retry,
    sleep: opts.sleep,
    random: opts.random,
    logger: logger.child({ component: 'llm', provider: choice.provider }),
  });
}

function buildAdapter(provider: ProviderName, env: Env, opts: CreateModelClientOptions): ProviderAdapter {
  const get = (name: string) => env[name]?.trim() || undefined;
  if (provider === 'anthropic') {
    return createAnthropicAdapter({ apiKey: get('ANTHROPIC_API_KEY')!, baseURL: get('ANTHROPIC_BASE_URL') });
  }
  return createOpenAIAdapter({ apiKey: get('OPENAI_API_KEY'), baseURL: get('OPENAI_BASE_URL'), ...opts.openai });
}
