import { stoppable } from '../../src/llm/shutdown';
import type { ModelClient, ModelRequest, ModelResponse } from '../../src/llm/types';

describe('the stoppable model client', () => {
  it('carries a burst of calls in flight without a listener-leak warning, and stops them all at once', async () => {
    const signals: AbortSignal[] = [];
    {
      // A server that never answers: each call waits until its signal aborts.
      const hung: ModelClient = {
        provider: 'anthropic',
        models: { chat: 'm', side: 'm' },
        complete: (req: ModelRequest) =>
          new Promise<ModelResponse>((_, reject) => {
            signals.push(req.signal!);
            req.signal!.addEventListener('abort', () => reject(req.signal!.reason), { once: true });
          }),
        close: async () => undefined,
      } as unknown as ModelClient;
      const client = stoppable(hung);
      const calls = Array.from({ length: 30 }, () => client.complete({ purpose: 'chat', system: 's', messages: [] } as unknown as ModelRequest));
      await new Promise((r) => setImmediate(r));
      client.abortAll('shutting down');
      const settled = await Promise.allSettled(calls);
      expect(settled.map((s) => s.status)).toEqual(Array(30).fill('rejected'));
      // Thirty listeners on one shared signal would make Node print a leak warning: one signal each.
      expect(new Set(signals).size).toBe(30);
      expect(signals.every((s) => s.aborted)).toBe(true);
    }
  });
});
