import net from 'node:net';
import type { ProviderAdapter } from './adapter';
import { createAnthropicAdapter } from './anthropic';
import { createOpenAIAdapter } from './openai';
import type { ProviderName } from './types';

/** What a provider answers, in the smallest form its SDK and our adapter accept. */
const CANNED: Record<ProviderName, unknown> = {
  anthropic: {
    id: 'msg_warm_up',
    type: 'message',
    role: 'assistant',
    model: 'warm-up',
    content: [{ type: 'text', text: 'ok' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  },
  openai: {
    id: 'chatcmpl-warm-up',
    object: 'chat.completion',
    created: 0,
    model: 'warm-up',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  },
};

/** Requests sent: the first loads and compiles, the next ones let the hot path be optimised. */
const WARM_UP_REQUESTS = 3;
const WARM_UP_TIMEOUT_MS = 5_000;

/**
 * Sends the provider's request shape a few times to a server of our own on 127.0.0.1, through the
 * same SDK and HTTP client as the real calls, so the first real call after a start does not pay for
 * loading and compiling them (undici's fetch classes and parser, the SDK's request path: ~80 ms of
 * the turn thread's CPU, which the first turns of a burst all waited behind). Nothing leaves the
 * machine and no key is sent. Resolves once done; a failure only means the first call is slower.
 */
export async function warmUpModelPath(provider: ProviderName): Promise<void> {
  const { server, close } = loopbackServer(JSON.stringify(CANNED[provider]));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const adapter = loopbackAdapter(provider, `http://127.0.0.1:${port}`);
  try {
    for (let i = 0; i < WARM_UP_REQUESTS; i++) {
      await adapter.send({
        req: { purpose: 'chat', system: [{ text: 'warm-up', cache: true }], messages: [{ role: 'user', content: 'warm-up' }] },
        model: 'warm-up',
        maxTokens: 1,
        signal: AbortSignal.timeout(WARM_UP_TIMEOUT_MS),
      });
    }
  } finally {
    await adapter.close().catch(() => undefined);
    await close();
  }
}

/**
 * A server that answers every request with `body` and closes the connection. Plain TCP, not
 * node:http: this runs in the turn worker, and Node aborts the whole process when a worker is
 * terminated while its built-in HTTP parser is at work (a bot stopped during its warm-up did).
 */
function loopbackServer(body: string): { server: net.Server; close(): Promise<void> } {
  const response = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let received = Buffer.alloc(0);
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const headEnd = received.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(received.subarray(0, headEnd).toString('latin1'))?.[1] ?? 0);
      if (received.length >= headEnd + 4 + length) socket.end(response);
    });
  });
  return {
    server,
    close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A request that timed out may have left its connection open: ended here, or close waits for it.
      for (const socket of sockets) socket.destroy();
      return closed;
    },
  };
}

function loopbackAdapter(provider: ProviderName, origin: string): ProviderAdapter {
  // A key the server ignores: the real one stays with the real client.
  if (provider === 'anthropic') return createAnthropicAdapter({ apiKey: 'warm-up', baseURL: origin });
  return createOpenAIAdapter({ apiKey: 'warm-up', baseURL: `${origin}/v1` });
}
