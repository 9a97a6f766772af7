import OpenAI from 'openai';
import { createHttpFetch } from './httpFetch';
import type { AdapterCall, ProviderAdapter } from './adapter';
import { malformedResponse } from './errors';
import type { ModelRequest, ModelResponse, Usage } from './types';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/**
 * Local OpenAI-compatible servers (Ollama, LM Studio) need no key, but the SDK refuses to start
 * without one; they ignore whatever we send.
 */
export const PLACEHOLDER_API_KEY = 'not-needed';

export interface OpenAIAdapterOptions {
  /** Omit for keyless local servers. */
  apiKey?: string;
  /** Includes /v1, e.g. http://localhost:11434/v1 for Ollama. */
  baseURL?: string;
  /**
   * OpenAI's current models only accept `max_completion_tokens`; many compatible servers only know
   * `max_tokens`. Default: the former for api.openai.com, the latter for any custom base URL.
   */
  maxTokensField?: 'max_completion_tokens' | 'max_tokens';
  /** Ask for usage on streams (`stream_options.include_usage`). Turn off for servers that reject it. */
  streamUsage?: boolean;
}

type Params = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;

export function createOpenAIAdapter(opts: OpenAIAdapterOptions): ProviderAdapter {
  const baseURL = opts.baseURL ?? OPENAI_DEFAULT_BASE_URL;
  const field = opts.maxTokensField ?? (opts.baseURL === undefined ? 'max_completion_tokens' : 'max_tokens');
  const streamUsage = opts.streamUsage ?? true;
  // Key and base URL explicit so the SDK never reads the environment; retries are ours.
  const http = createHttpFetch();
  const sdk = new OpenAI({ apiKey: opts.apiKey || PLACEHOLDER_API_KEY, baseURL, maxRetries: 0, fetch: http.fetch });
  return {
    provider: 'openai',
    baseURL,
    close: http.close,
    async send(call: AdapterCall): Promise<ModelResponse> {
      const params = buildOpenAIParams(call.req, call.model, call.maxTokens, field);
      if (!call.onText) {
        const completion = await sdk.chat.completions.create(params, { signal: call.signal });
        // A proxy or a wrong URL can answer 200 with anything ({}, an event stream, text).
        if (!completion || typeof completion !== 'object' || !Array.isArray(completion.choices)) {
          throw malformedResponse('openai', typeof completion === 'string' ? 'text, not a completion' : 'a completion without choices', completion);
        }
        const choice = completion.choices[0];
        return {
          text: choice?.message.content ?? '',
          stopReason: mapFinishReason(choice?.finish_reason),
          usage: foldOpenAIUsage(completion.usage),
          model: completion.model || call.model,
          provider: 'openai',
        };
      }
      const stream = await sdk.chat.completions.create(
        { ...params, stream: true, ...(streamUsage ? { stream_options: { include_usage: true } } : {}) },
        { signal: call.signal },
      );
      let text = '';
      let finish: string | null | undefined;
      let usage: OpenAI.CompletionUsage | undefined;
      let model = call.model;
      for await (const chunk of stream) {
        if (chunk.model) model = chunk.model;
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices[0];
        if (!choice) continue;
        const delta = choice.delta?.content;
        if (delta) {
          text += delta;
          call.onText(delta);
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
      return { text, stopReason: mapFinishReason(finish), usage: foldOpenAIUsage(usage), model, provider: 'openai' };
    },
  };
}

/**
 * System blocks become ONE system message (joined by blank lines), followed by the turns in order:
 * the byte order matches the Anthropic request, so OpenAI's automatic prefix caching hits on the
 * same stable prefix. Cache flags have no wire form here.
 */
export function buildOpenAIParams(req: ModelRequest, model: string, maxTokens: number, field: 'max_completion_tokens' | 'max_tokens'): Params {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [];
  if (req.system.length > 0) messages.push({ role: 'system', content: req.system.map((b) => b.text).join('\n\n') });
  for (const m of req.messages) messages.push({ role: m.role, content: m.content });
  const params: Params = { model, messages, [field]: maxTokens };
  if (req.temperature !== undefined) params.temperature = req.temperature;
  return params;
}

function mapFinishReason(reason: string | null | undefined): ModelResponse['stopReason'] {
  if (reason === 'stop') return 'end';
  if (reason === 'length') return 'max_tokens';
  return 'other';
}

/** OpenAI's prompt_tokens already INCLUDES cached tokens; there is no separate cache-write charge. */
export function foldOpenAIUsage(u: OpenAI.CompletionUsage | undefined): Usage {
  return {
    inputTokens: u?.prompt_tokens ?? 0,
    outputTokens: u?.completion_tokens ?? 0,
    cacheReadTokens: u?.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: 0,
  };
}
