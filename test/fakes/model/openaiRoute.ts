import type { ServerResponse } from 'node:http';
import type { AutoPrefixCache } from './prefixCache';
import { chunkText, sendData, sendJson, startSse } from './sse';
import { charsForTokens, estimateTokens } from './tokens';
import type { FakeErrorReply, FakeErrorSpec, FakeRequest, FakeTextReply, FakeUsage } from './types';

/* eslint-disable @typescript-eslint/no-explicit-any */

export function describeOpenAI(body: any): Pick<FakeRequest, 'system' | 'messages' | 'model' | 'stream'> {
  const all = (Array.isArray(body.messages) ? body.messages : []).map((m: any) => ({ role: String(m.role), text: textOf(m.content) }));
  const isSystem = (m: { role: string }) => m.role === 'system' || m.role === 'developer';
  return {
    system: all
      .filter(isSystem)
      .map((m: { text: string }) => m.text)
      .join('\n\n'),
    messages: all.filter((m: { role: string }) => !isSystem(m)),
    model: String(body.model ?? ''),
    stream: body.stream === true,
  };
}

/**
 * The prompt as one string in request order; prompt_tokens and automatic prefix caching are both
 * computed on it, so only a byte-identical beginning counts as cached.
 */
export function serializeOpenAI(body: any): string {
  return (body.messages ?? []).map((m: any) => `<|${m.role}|>${textOf(m.content)}`).join('');
}

export function validateOpenAI(body: any, promptTokens: number, contextWindow?: number): FakeErrorSpec | undefined {
  if (typeof body.model !== 'string' || !body.model) return { status: 400, message: 'you must provide a model parameter' };
  if (!Array.isArray(body.messages) || body.messages.length === 0) return { status: 400, message: "'messages' must contain at least one message" };
  if (contextWindow !== undefined && promptTokens > contextWindow) return { status: 400, kind: 'context_too_long' };
  return undefined;
}

export function openaiErrorBody(spec: FakeErrorSpec) {
  if (spec.kind === 'context_too_long') {
    return {
      error: {
        message:
          spec.message ??
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 250000 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    };
  }
  const defaults: Record<number, [string, string | null]> = {
    400: ['invalid_request_error', null],
    401: ['invalid_request_error', 'invalid_api_key'],
    403: ['invalid_request_error', null],
    404: ['invalid_request_error', 'model_not_found'],
    429: ['requests', 'rate_limit_exceeded'],
  };
  const [type, code] = defaults[spec.status] ?? ['server_error', null];
  return { error: { message: spec.message ?? `fake ${spec.status} error`, type: spec.type ?? type, param: null, code: spec.code ?? code } };
}

export function sendOpenAIError(res: ServerResponse, reply: FakeErrorReply, requestId: string, headers: Record<string, string>): void {
  sendJson(res, reply.error.status, openaiErrorBody(reply.error), { 'x-request-id': requestId, ...headers });
}

export function sendOpenAIReply(
  res: ServerResponse,
  body: any,
  reply: FakeTextReply,
  cache: AutoPrefixCache,
  ids: { completion: string; request: string; created: number },
): FakeUsage {
  const serialized = serializeOpenAI(body);
  const promptTokens = estimateTokens(serialized);
  const cached = cache.apply(String(body.model), serialized);
  const limit: number | undefined = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  let text = reply.text;
  let finish = reply.stopReason ?? 'stop';
  if (limit !== undefined && estimateTokens(text) > limit) {
    text = text.slice(0, charsForTokens(limit));
    finish = 'length';
  }
  const usage: FakeUsage = { inputTokens: promptTokens, outputTokens: estimateTokens(text), cacheReadTokens: cached, cacheWriteTokens: 0 };
  const wireUsage = {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
  const base = { id: ids.completion, created: ids.created, model: body.model, system_fingerprint: 'fp_fake', service_tier: 'default' };
  const headers = { 'x-request-id': ids.request };
  if (body.stream !== true) {
    sendJson(
      res,
      200,
      {
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null, annotations: [] }, logprobs: null, finish_reason: finish }],
        usage: wireUsage,
      },
      headers,
    );
    return usage;
  }
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ ...base, object: 'chat.completion.chunk', choices, ...extra });
  startSse(res, headers);
  sendData(res, chunk([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }]));
  const pieces = chunkText(text);
  const sendUpTo = reply.failMidStream ? Math.ceil(pieces.length / 2) : pieces.length;
  for (const piece of pieces.slice(0, sendUpTo)) {
    sendData(res, chunk([{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }]));
  }
  if (reply.failMidStream) {
    sendData(res, openaiErrorBody(reply.failMidStream));
    res.end();
    return usage;
  }
  sendData(res, chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finish }]));
  if (body.stream_options?.include_usage) sendData(res, chunk([], { usage: wireUsage }));
  sendData(res, '[DONE]');
  res.end();
  return usage;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p: any) => (typeof p?.text === 'string' ? p.text : '')).join('');
}
