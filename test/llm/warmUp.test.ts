import http from 'node:http';
import { warmUpModelPath } from '../../src/llm/warmUp';

describe("warming the model client's request path up at start", () => {
  afterEach(() => jest.restoreAllMocks());

  it.each(['anthropic', 'openai'] as const)(
    'sends %s requests through the real SDK to a server of its own on 127.0.0.1, which it closes, and accepts the canned answer',
    async (provider) => {
      const served: { host: string; url: string; auth: string }[] = [];
      const closed: string[] = [];
      const createServer = http.createServer;
      // The real server, watched: where each request went, and that it was closed.
      jest.spyOn(http, 'createServer').mockImplementation(((listener: http.RequestListener) => {
        const server = createServer((req, res) => {
          served.push({ host: req.headers.host ?? '', url: req.url ?? '', auth: String(req.headers['x-api-key'] ?? req.headers.authorization ?? '') });
          listener(req, res);
        });
        server.on('close', () => closed.push(provider));
        return server;
      }) as typeof http.createServer);
      await warmUpModelPath(provider);
      expect(served.length).toBeGreaterThanOrEqual(1);
      for (const s of served) {
        expect(s.host).toMatch(/^127\.0\.0\.1:\d+$/);
        expect(s.url).toBe(provider === 'anthropic' ? '/v1/messages' : '/v1/chat/completions');
        // Never a real key: only the placeholder the loopback server ignores.
        expect(s.auth).toMatch(/warm-up/);
      }
      expect(closed).toEqual([provider]);
    },
  );
});
