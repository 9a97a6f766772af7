import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ClientRequestSchema, ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * `minutes mcp`'s stdio transport: one JSON-RPC message a line, as the SDK's StdioServerTransport,
 * but whatever a client sends is answered and the server keeps serving (issue 40). The SDK's closed
 * the connection on a line over 10 MB (the command then ended with exit 0 and no word), dropped a
 * line that did not parse without a reply, and let a request whose params did not fit its method
 * reach the server, which answered -32603 with the validator's whole dump. Here:
 * - a line over `maxLineBytes` is refused at once (-32600, naming the limit) and the rest of it is
 *   read and dropped, never held in memory;
 * - a line that is not JSON: -32700; JSON that is not a JSON-RPC message: -32600;
 * - a request to a method the protocol defines whose params do not fit it: -32602, in one line.
 * Each refusal is also reported once through `onRefused` (stderr in the command).
 */
export interface LineTransportOptions {
  input: Readable;
  output: Writable;
  /** The longest request line read, in bytes. */
  maxLineBytes?: number;
  onRefused?: (why: string) => void;
}

export const MAX_LINE_BYTES = 1024 * 1024;

/** The protocol's own schema of each request a client may send, by method. */
const REQUEST_SCHEMAS = new Map(ClientRequestSchema.options.map((s) => [s.shape.method.value as string, s] as const));

/** An id read from the start of a line too long to parse: the client waiting on it gets its answer. */
function idInPrefix(prefix: string): RequestId | null {
  const head = prefix.split('"params"')[0];
  const m = /"id"\s*:\s*(-?\d{1,15}(?![\d.eE])|"[^"\\]{0,200}")/.exec(head);
  if (!m) return null;
  return m[1].startsWith('"') ? m[1].slice(1, -1) : Number(m[1]);
}

function idOf(value: unknown): RequestId | null {
  const id = value && typeof value === 'object' && !Array.isArray(value) ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : null;
}

/** A validator's first complaint, in one line: "params.arguments: Invalid input: expected record, received null". */
function firstIssue(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  const first = issues[0];
  if (!first) return 'they do not fit it';
  const where = first.path.map(String).join('.') || 'params';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return `${where}: ${first.message.replace(/\s+/g, ' ')}${more}`;
}

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly max: number;
  private parts: Buffer[] = [];
  private size = 0;
  /** Inside a line already refused: everything up to its newline is dropped. */
  private dropping = false;
  private closed = false;

  constructor(private readonly o: LineTransportOptions) {
    this.max = o.maxLineBytes ?? MAX_LINE_BYTES;
  }

  private readonly onData = (chunk: Buffer | string): void => {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (let nl = buf.indexOf(10); nl >= 0; nl = buf.indexOf(10)) {
      if (!this.dropping) this.take(buf.subarray(0, nl));
      if (!this.dropping && this.size) this.line(Buffer.concat(this.parts, this.size).toString('utf8').replace(/\r$/, ''));
      this.parts = [];
      this.size = 0;
      this.dropping = false;
      buf = buf.subarray(nl + 1);
    }
    if (!this.dropping) this.take(buf);
  };

  private readonly onError = (err: Error): void => this.onerror?.(err);

  /** Keeps part of a line; refuses the line the moment it is over the limit. */
  private take(part: Buffer): void {
    if (!part.length) return;
    if (this.size + part.length <= this.max) {
      this.parts.push(part);
      this.size += part.length;
      return;
    }
    const prefix = Buffer.concat([...this.parts, part.subarray(0, 4096)]).toString('utf8', 0, 4096);
    this.parts = [];
    this.size = 0;
    this.dropping = true;
    const limit = this.max === MAX_LINE_BYTES ? '1 MB' : `${this.max} bytes`;
    this.refuse(idInPrefix(prefix), ErrorCode.InvalidRequest, `request refused: its line is over ${limit} (${this.max} bytes); send smaller requests`);
    this.o.onRefused?.(`refused a request line over ${limit}`);
  }

  private line(text: string): void {
    if (!text.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.refuse(null, ErrorCode.ParseError, `parse error: the line is not valid JSON (${(err as Error).message.split('\n')[0].slice(0, 160)})`);
      return;
    }
    const msg = JSONRPCMessageSchema.safeParse(value);
    if (!msg.success) {
      const { method, params } = (value && typeof value === 'object' ? value : {}) as { method?: unknown; params?: unknown };
      // A request in shape but for its params ("params": null): its params are what is wrong.
      if (
        typeof method === 'string' &&
        idOf(value) !== null &&
        params !== undefined &&
        (typeof params !== 'object' || params === null || Array.isArray(params))
      ) {
        this.refuse(idOf(value), ErrorCode.InvalidParams, `invalid params for ${method.slice(0, 100)}: params must be an object`);
        return;
      }
      this.refuse(idOf(value), ErrorCode.InvalidRequest, 'invalid request: not a JSON-RPC 2.0 message (jsonrpc "2.0", a method or a result, an id)');
      return;
    }
    const m = msg.data as JSONRPCMessage;
    if ('method' in m && 'id' in m) {
      const schema = REQUEST_SCHEMAS.get(m.method);
      const fits = schema?.safeParse(m);
      if (fits && !fits.success) {
        this.refuse(m.id, ErrorCode.InvalidParams, `invalid params for ${m.method}: ${firstIssue(fits.error.issues)}`);
        return;
      }
    }
    this.onmessage?.(m);
  }

  private refuse(id: RequestId | null, code: number, message: string): void {
    // JSON-RPC answers an unreadable request with a null id; the SDK's type has no room for one.
    // write() never rejects: a closed output drops the answer, as it drops any other.
    void this.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })).catch(() => undefined);
  }

  private write(json: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed || this.o.output.write(`${json}\n`)) resolve();
      else this.o.output.once('drain', resolve);
    });
  }

  async start(): Promise<void> {
    this.o.input.on('data', this.onData);
    this.o.input.on('error', this.onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(JSON.stringify(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.o.input.off('data', this.onData);
    this.o.input.off('error', this.onError);
    if (!this.o.input.listenerCount('data')) this.o.input.pause();
    this.parts = [];
    this.onclose?.();
  }
}
