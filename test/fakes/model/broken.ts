import type { ServerResponse } from 'node:http';
import { gone } from './sse';

/**
 * A model server (or a proxy in front of one) misbehaving in the ways a new user met (issue 15):
 *  - `drop`: a 200 whose body stops half-way and the connection closes (the SDK sees "terminated");
 *  - `empty-json`: a 200 with `{}`;
 *  - `sse-body`: a 200 with an event stream to a plain (non-streaming) request;
 *  - `not-json`: a 200 labelled JSON whose body is not JSON (an HTML page with a NUL byte);
 *  - `hang`: the request is read and never answered (until the server closes).
 */
export type BrokenKind = 'drop' | 'empty-json' | 'sse-body' | 'not-json' | 'hang';

export interface FakeBrokenReply {
  broken: BrokenKind;
  delayMs?: number;
}

export function isBrokenReply(r: object): r is FakeBrokenReply {
  return 'broken' in r;
}

/** Sends the broken answer. `hang` resolves only when `forever` does (the server's close). */
export async function sendBroken(res: ServerResponse, kind: BrokenKind, forever: () => Promise<void>): Promise<void> {
  if (gone(res)) return;
  switch (kind) {
    case 'drop': {
      const whole = JSON.stringify({ id: 'msg_dropped', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'this answer never arrives whole' }] });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(whole) });
      res.write(whole.slice(0, 20));
      // Let the headers and first bytes reach the client before the socket goes.
      await new Promise((r) => setTimeout(r, 20));
      res.socket?.destroy();
      return;
    }
    case 'empty-json': {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
      res.end('{}');
      return;
    }
    case 'sse-body': {
      const body = 'event: message_start\ndata: {"type":"message_start"}\n\ndata: {"choices":[]}\n\n';
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(body);
      return;
    }
    case 'not-json': {
      const body = '\u0000<html><body>502 Bad Gateway</body></html>';
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    case 'hang':
      await forever();
      return;
  }
}
