import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
  const body = JSON.stringify(CANNED[provider]);
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
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
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function loopbackAdapter(provider: ProviderName, origin: string): ProviderAdapter {
  // A key the server ignores: the real one stays with the real client.
  if (provider === 'anthropic') return createAnthropicAdapter({ apiKey: 'warm-up', baseURL: origin });
  return createOpenAIAdapter({ apiKey: 'warm-up', baseURL: `${origin}/v1` });
}
