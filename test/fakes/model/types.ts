export type FakeApi = 'anthropic' | 'openai';

/** A request as the fake saw it, normalised for handlers and assertions. */
export interface FakeRequest {
  api: FakeApi;
  path: string;
  /** Lower-case names, as node:http gives them. */
  headers: Record<string, string>;
  /** The parsed JSON body, exactly as the SDK sent it. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  model: string;
  stream: boolean;
  /** System prompt text (Anthropic `system` blocks / OpenAI system messages), joined by blank lines. */
  system: string;
  /** Conversation turns (system messages excluded), text parts joined. */
  messages: { role: string; text: string }[];
  /** Text of the last user turn: what handlers usually answer. */
  lastUserText: string;
  /** Time on the fake's clock when the request arrived. */
  at: number;
}

/** Usage as the fake reported it, in the provider's own terms. */
export interface FakeUsage {
  /** Anthropic: excludes cache read and write. OpenAI: the whole prompt (includes cached). */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  /** Always 0 for OpenAI (no such field). */
  cacheWriteTokens: number;
}

export interface RecordedRequest extends FakeRequest {
  /** HTTP status sent (0 while still pending, or when the client went away first). */
  status: number;
  /** Set for successful replies. */
  usage?: FakeUsage;
  /** The client closed the connection before the answer was complete (it aborted or gave up). */
  clientClosed?: boolean;
}

export interface FakeTextReply {
  text: string;
  /** Wire value; default 'end_turn' (Anthropic) / 'stop' (OpenAI). Replies longer than max_tokens are cut and get the length reason. */
  stopReason?: string;
  /** Extra wait before answering, on top of the server's latencyMs. */
  delayMs?: number;
  /** Streaming only: send the first half of the text, then this error as an in-stream error event. */
  failMidStream?: FakeErrorSpec;
}

export interface FakeErrorSpec {
  status: number;
  /** Provider error type; a sensible default per status. */
  type?: string;
  message?: string;
  /** OpenAI `code` (e.g. 'rate_limit_exceeded'). */
  code?: string;
  /** Shortcut: the provider's own "context too long" error (status 400, exact wording and code). */
  kind?: 'context_too_long';
}

export interface FakeErrorReply {
  error: FakeErrorSpec;
  /** Sent as `retry-after-ms`. */
  retryAfterMs?: number;
  /** Sent as `retry-after` (seconds). */
  retryAfterSeconds?: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** A plain string is a text reply; `{ broken }` is a misbehaving server (see broken.ts). */
export type FakeReply = string | FakeTextReply | FakeErrorReply | import('./broken').FakeBrokenReply;
export type FakeHandler = (req: FakeRequest) => FakeReply | Promise<FakeReply>;

export function isErrorReply(r: object): r is FakeErrorReply {
  return 'error' in r;
}
