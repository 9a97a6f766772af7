/**
 * The one model interface. Chat replies and every side task (Secretary, SESSION.md / MEMORY.md
 * upkeep, compaction summaries) go through `ModelClient.complete`; side tasks that need
 * structured output use `completeJson` (json.ts) on top of it.
 */

export type ProviderName = 'anthropic' | 'openai';

/**
 * A block of the system prompt. `cache: true` asks for a cache breakpoint right after this block:
 * everything up to and including it is a prefix the provider may cache. Anthropic gets an explicit
 * `cache_control`; OpenAI caches prefixes automatically, so there the flag only documents intent.
 */
export interface SystemBlock {
  text: string;
  cache?: boolean;
}

/** One conversation turn. `cache: true` means "a cache breakpoint after this turn". */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
  cache?: boolean;
}

/**
 * `purpose` picks the model: 'chat' for replies to people, 'side' for maintenance work (which is
 * configured separately and is usually a smaller, cheaper model).
 */
export interface ModelRequest {
  purpose: 'chat' | 'side';
  /** Stable to volatile; the order is kept byte-for-byte so prefix caching can hit. */
  system: SystemBlock[];
  messages: ChatMessage[];
  maxTokens?: number;
  /** Sent to OpenAI-compatible servers only: Anthropic's current API version has no temperature. */
  temperature?: number;
  signal?: AbortSignal;
  /** When given the call streams, and every text delta is passed here as it arrives. */
  onText?: (delta: string) => void;
}

/**
 * Token usage of one call, folded the same way for both providers.
 * `inputTokens` is the WHOLE prompt: uncached + cache read + cache write. So the share served from
 * cache is `cacheReadTokens / inputTokens`, whatever the provider.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface ModelResponse {
  text: string;
  /** 'end': the model finished; 'max_tokens': it was cut off; 'other': refusal, tool use, ... */
  stopReason: 'end' | 'max_tokens' | 'other';
  usage: Usage;
  model: string;
  provider: ProviderName;
}

export interface ModelClient {
  readonly provider: ProviderName;
  /** Model names actually used, for /status and usage records. */
  readonly models: { chat: string; side: string };
  /** Throws ModelError for provider failures; rethrows the signal's reason when `req.signal` aborts. */
  complete(req: ModelRequest): Promise<ModelResponse>;
  /** Stops the limiter (and its Redis connection). Calls after close() are rejected. */
  close(): Promise<void>;
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}
