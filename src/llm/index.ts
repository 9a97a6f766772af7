/** Public surface of the model layer. Everything else in src/ imports from here. */
export type { ChatMessage, ModelClient, ModelRequest, ModelResponse, ProviderName, SystemBlock, Usage } from './types';
export { addUsage, emptyUsage } from './types';
export { ModelError, toModelError, type ModelErrorKind } from './errors';
export { completeJson, extractJson, type CompleteJsonOptions, type JsonResult } from './json';
export { createLimiter, limiterSettings, redisClientOptions, DEFAULT_LIMITS, type LimiterConfig, type ModelLimiter } from './limiter';
export { DEFAULT_RETRY_POLICY, realSleep, type RetryPolicy, type Sleep } from './retry';
export {
  createModelClient,
  selectProvider,
  ProviderConfigError,
  DEFAULT_MODELS,
  DEFAULT_MAX_TOKENS,
  DEFAULT_TIMEOUT_MS,
  type CreateModelClientOptions,
  type Env,
  type ProviderChoice,
} from './provider';
export { buildAnthropicParams, MAX_CACHE_BREAKPOINTS } from './anthropic';
export { buildOpenAIParams } from './openai';
