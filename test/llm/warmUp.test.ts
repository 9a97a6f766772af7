import net from 'node:net';
import { warmUpModelPath } from '../../src/llm/warmUp';

describe("warming the model client's request path up at start", () => {
  afterEach(() => jest.restoreAllMocks());

  it.each(['anthropic', 'openai'] as const)(
    'sends %s requests through the real SDK to a server of its own on 127.0.0.1, which it closes, and accepts the canned answer',
    async (provider) => {
      const requests: string[] = [];
      let closed = false;
      const createServer = net.createServer;
      // The real server, watched: what each connection carried, and that it was closed.
      jest.spyOn(net, 'createServer').mockImplementation(((listener: (socket: net.Socket) => void) => {
        const server = createServer((socket) => {
          let text = '';
          socket.on('data', (d) => (text += d.toString('latin1')));
          socket.on('close', () => requests.push(text));
          listener(socket);
        });
        server.on('close', () => (closed = true));
        return server;
      }) as typeof net.createServer);
      // Resolves only if the real SDK and our adapter accepted the canned answer.
      await warmUpModelPath(provider);
      expect(requests.length).toBeGreaterThanOrEqual(1);
      for (const r of requests) {
        expect(r.split('\r\n')[0]).toBe(provider === 'anthropic' ? 'POST /v1/messages HTTP/1.1' : 'POST /v1/chat/completions HTTP/1.1');
        expect(r).toMatch(/^host: 127\.0\.0\.1:\d+$/im);
        // Never a real key: only the placeholder the loopback server ignores.
        expect(r).toMatch(/^(x-api-key: warm-up|authorization: Bearer warm-up)$/im);
      }
      expect(closed).toBe(true);
    },
  );
});
