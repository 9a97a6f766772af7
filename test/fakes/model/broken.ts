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
export async function sendBroken(
  res: ServerResponse,
  kind: BrokenKind,
  forever: () => Promise<void>,
  streaming: { api: 'anthropic' | 'openai'; stream: boolean },
): Promise<void> {
  if (gone(res)) return;
  switch (kind) {
    case 'drop': {
      if (streaming.stream) {
        // A stream cut after its first words: the client has shown part of the answer.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          streaming.api === 'anthropic'
            ? 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_cut","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\n' +
                'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
                'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The first words"}}\n\n'
            : 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"The first words"},"finish_reason":null}]}\n\n',
        );
        await new Promise((r) => setTimeout(r, 20));
        res.socket?.destroy();
        return;
      }
      const whole = JSON.stringify({
        id: 'msg_dropped',
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: 'this answer never arrives whole' }],
      });
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
