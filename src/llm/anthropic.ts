import Anthropic from '@anthropic-ai/sdk';
import { createHttpFetch } from './httpFetch';
import type { AdapterCall, ProviderAdapter } from './adapter';
import { malformedResponse } from './errors';
import type { ModelRequest, ModelResponse, Usage } from './types';

/** The API rejects a request with more than four cache_control blocks. */
export const MAX_CACHE_BREAKPOINTS = 4;
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

export interface AnthropicAdapterOptions {
  apiKey: string;
  /** Without /v1: the SDK appends /v1/messages. */
  baseURL?: string;
}

type Params = Anthropic.MessageCreateParamsNonStreaming;

export function createAnthropicAdapter(opts: AnthropicAdapterOptions): ProviderAdapter {
  // The key and base URL are always passed explicitly, so the SDK never falls back to reading the
  // environment or its credential chain. maxRetries 0: retries are ours (client.ts), one policy
  // for both providers, and each retry goes through the rate limiter again.
  const baseURL = opts.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL;
  const http = createHttpFetch();
  const sdk = new Anthropic({ apiKey: opts.apiKey, baseURL, maxRetries: 0, fetch: http.fetch });
  return {
    provider: 'anthropic',
    baseURL,
    close: http.close,
    async send(call: AdapterCall): Promise<ModelResponse> {
      const params = buildAnthropicParams(call.req, call.model, call.maxTokens);
      let message: Anthropic.Message;
      if (call.onText) {
        const onText = call.onText;
        const stream = sdk.messages.stream(params, { signal: call.signal });
        stream.on('text', (delta) => onText(delta));
        message = await stream.finalMessage();
      } else {
        message = await sdk.messages.create(params, { signal: call.signal });
      }
      return toResponse(message, call.model);
    },
  };
}

/**
 * Request body for Messages API. Every block flagged `cache` gets `cache_control`, except that only
 * the LAST four flags are honoured: later breakpoints cover longer prefixes, and the API's lookback
 * still finds cache entries at earlier block boundaries.
 */
export function buildAnthropicParams(req: ModelRequest, model: string, maxTokens: number): Params {
  const flagged = [...req.system, ...req.messages].map((b) => b.cache === true);
  const keep = keepLastBreakpoints(flagged, MAX_CACHE_BREAKPOINTS);
  const block = (text: string, i: number): Anthropic.TextBlockParam =>
    keep[i] ? { type: 'text', text, cache_control: { type: 'ephemeral' } } : { type: 'text', text };
  const system = req.system.map((b, i) => block(b.text, i));
  const messages: Anthropic.MessageParam[] = req.messages.map((m, j) => ({
    role: m.role,
    content: [block(m.content, req.system.length + j)],
  }));
  const params: Params = { model, max_tokens: maxTokens, messages };
  if (system.length > 0) params.system = system;
  return params;
}

/** `flags` with all but the last `max` true entries turned false. */
export function keepLastBreakpoints(flags: boolean[], max: number): boolean[] {
  let budget = max;
  const out = flags.slice();
  for (let i = out.length - 1; i >= 0; i--) {
    if (!out[i]) continue;
    if (budget > 0) budget--;
    else out[i] = false;
  }
  return out;
}

function toResponse(message: Anthropic.Message, requestedModel: string): ModelResponse {
  // A proxy or a wrong URL can answer 200 with anything ({}, an event stream, text).
  if (!message || typeof message !== 'object' || !Array.isArray(message.content)) {
    throw malformedResponse('anthropic', typeof message === 'string' ? 'text, not a message' : 'a message without content', message);
  }
  const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  return {
    text,
    stopReason: mapStopReason(message.stop_reason),
    usage: foldAnthropicUsage(message.usage),
    model: message.model || requestedModel,
    provider: 'anthropic',
  };
}

function mapStopReason(reason: Anthropic.StopReason | null): ModelResponse['stopReason'] {
  if (reason === 'end_turn' || reason === 'stop_sequence') return 'end';
  // Both mean "the text was cut off for length".
  if (reason === 'max_tokens' || reason === 'model_context_window_exceeded') return 'max_tokens';
  return 'other';
}

/** Anthropic's input_tokens EXCLUDES cache reads and writes; ours is the whole prompt. */
export function foldAnthropicUsage(
  u: Pick<Anthropic.Usage, 'input_tokens' | 'output_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens'>,
): Usage {
  const read = u.cache_read_input_tokens ?? 0;
  const write = u.cache_creation_input_tokens ?? 0;
  return { inputTokens: (u.input_tokens ?? 0) + read + write, outputTokens: u.output_tokens ?? 0, cacheReadTokens: read, cacheWriteTokens: write };
}
