import type { ServerResponse } from 'node:http';
import type { BreakpointPrefixCache, PromptBlock } from './prefixCache';
import { chunkText, sendEvent, sendJson, startSse } from './sse';
import { charsForTokens, estimateTokens } from './tokens';
import type { FakeErrorReply, FakeErrorSpec, FakeRequest, FakeTextReply, FakeUsage } from './types';

/* eslint-disable @typescript-eslint/no-explicit-any */

export const MAX_BREAKPOINTS = 4;

/** Normalises an Anthropic Messages request for handlers. */
export function describeAnthropic(body: any): Pick<FakeRequest, 'system' | 'messages' | 'model' | 'stream'> {
  const system = textOf(body.system);
  const messages = (Array.isArray(body.messages) ? body.messages : [])
    .filter((m: any) => m.role !== 'system')
    .map((m: any) => ({ role: String(m.role), text: textOf(m.content) }));
  return { system, messages, model: String(body.model ?? ''), stream: body.stream === true };
}

/** Blocks in the API's cache order: tools, system, messages (system-role messages in place). */
export function anthropicBlocks(body: any): PromptBlock[] {
  const out: PromptBlock[] = [];
  const add = (section: string, block: any) => {
    const { cache_control, ...rest } = typeof block === 'string' ? { type: 'text', text: block } : block;
    const text = typeof rest.text === 'string' ? rest.text : JSON.stringify(rest);
    out.push({ material: `${section}\0${JSON.stringify(rest)}`, tokens: estimateTokens(text), breakpoint: cache_control != null });
  };
  for (const tool of body.tools ?? []) add('tool', tool);
  for (const b of asBlocks(body.system)) add('system', b);
  for (const m of body.messages ?? []) for (const b of asBlocks(m.content)) add(String(m.role), b);
  return out;
}

/** A 400 the real API would give, or undefined if the request is acceptable. */
export function validateAnthropic(body: any, blocks: PromptBlock[], contextWindow?: number): FakeErrorSpec | undefined {
  if (typeof body.model !== 'string' || !body.model) return { status: 400, message: 'model: Field required' };
  if (typeof body.max_tokens !== 'number') return { status: 400, message: 'max_tokens: Field required' };
  if (!Array.isArray(body.messages) || body.messages.length === 0) return { status: 400, message: 'messages: at least one message is required' };
  const bps = blocks.filter((b) => b.breakpoint).length;
  if (bps > MAX_BREAKPOINTS) return { status: 400, message: `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${bps}.` };
  const total = blocks.reduce((n, b) => n + b.tokens, 0);
  if (contextWindow !== undefined && total > contextWindow)
    return { status: 400, kind: 'context_too_long', message: `prompt is too long: ${total} tokens > ${contextWindow} maximum` };
  return undefined;
}

export function anthropicErrorBody(spec: FakeErrorSpec, requestId: string) {
  const message = spec.message ?? (spec.kind === 'context_too_long' ? 'prompt is too long: 250000 tokens > 200000 maximum' : `fake ${spec.status} error`);
  return { type: 'error', error: { type: spec.type ?? anthropicErrorType(spec), message }, request_id: requestId };
}

function anthropicErrorType(spec: FakeErrorSpec): string {
  const byStatus: Record<number, string> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    402: 'billing_error',
    403: 'permission_error',
    404: 'not_found_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    504: 'timeout_error',
    529: 'overloaded_error',
  };
  return byStatus[spec.status] ?? 'api_error';
}

export function sendAnthropicError(res: ServerResponse, reply: FakeErrorReply, requestId: string, headers: Record<string, string>): void {
  sendJson(res, reply.error.status, anthropicErrorBody(reply.error, requestId), { 'request-id': requestId, ...headers });
}

/** Answers with the text reply in Anthropic's wire format (JSON or SSE); returns the usage reported. */
export function sendAnthropicReply(
  res: ServerResponse,
  body: any,
  reply: FakeTextReply,
  cache: BreakpointPrefixCache,
  blocks: PromptBlock[],
  ids: { message: string; request: string },
): FakeUsage {
  const outcome = cache.apply(String(body.model), blocks);
  let text = reply.text;
  let stop = reply.stopReason ?? 'end_turn';
  if (estimateTokens(text) > body.max_tokens) {
    text = text.slice(0, charsForTokens(body.max_tokens));
    stop = 'max_tokens';
  }
  const usage: FakeUsage = {
    inputTokens: outcome.totalTokens - outcome.readTokens - outcome.writeTokens,
    outputTokens: estimateTokens(text),
    cacheReadTokens: outcome.readTokens,
    cacheWriteTokens: outcome.writeTokens,
  };
  const wireUsage = (output: number) => ({
    input_tokens: usage.inputTokens,
    output_tokens: output,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation: { ephemeral_5m_input_tokens: usage.cacheWriteTokens, ephemeral_1h_input_tokens: 0 },
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: 'standard',
    speed: null,
  });
  const message = (content: unknown[], stopReason: string | null, output: number) => ({
    id: ids.message,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    container: null,
    diagnostics: null,
    stop_details: null,
    usage: wireUsage(output),
  });
  const headers = { 'request-id': ids.request };
  if (body.stream !== true) {
    sendJson(res, 200, message([{ type: 'text', text, citations: null }], stop, usage.outputTokens), headers);
    return usage;
  }
  startSse(res, headers);
  sendEvent(res, 'message_start', { type: 'message_start', message: message([], null, 1) });
  sendEvent(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: null } });
  sendEvent(res, 'ping', { type: 'ping' });
  const chunks = chunkText(text);
  const sendUpTo = reply.failMidStream ? Math.ceil(chunks.length / 2) : chunks.length;
  for (const piece of chunks.slice(0, sendUpTo)) {
    sendEvent(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
  }
  if (reply.failMidStream) {
    sendEvent(res, 'error', anthropicErrorBody(reply.failMidStream, ids.request));
    res.end();
    return usage;
  }
  sendEvent(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
  sendEvent(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: wireUsage(usage.outputTokens) });
  sendEvent(res, 'message_stop', { type: 'message_stop' });
  res.end();
  return usage;
}

function asBlocks(content: unknown): any[] {
  if (content == null) return [];
  return typeof content === 'string' ? [{ type: 'text', text: content }] : (content as any[]);
}

function textOf(content: unknown): string {
  return asBlocks(content)
    .map((b) => (typeof b?.text === 'string' ? b.text : ''))
    .join('\n\n');
}
