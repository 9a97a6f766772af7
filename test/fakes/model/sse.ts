import type { ServerResponse } from 'node:http';

/** Replies that no longer have anyone listening are skipped instead of throwing. */
export function gone(res: ServerResponse): boolean {
  return res.destroyed || res.writableEnded;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (gone(res)) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function startSse(res: ServerResponse, headers: Record<string, string> = {}): void {
  if (gone(res)) return;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
}

/** Anthropic SSE: every message needs an `event:` line or the SDK skips it. */
export function sendEvent(res: ServerResponse, event: string, data: unknown): void {
  if (!gone(res)) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** OpenAI SSE: data-only lines. */
export function sendData(res: ServerResponse, data: unknown): void {
  if (!gone(res)) res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

/** Splits a reply into word-sized stream deltas ("Hello", " world", ...). */
export function chunkText(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? (text ? [text] : []);
}
