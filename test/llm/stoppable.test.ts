import { getEventListeners } from 'node:events';
import { stoppable } from '../../src/llm/shutdown';
import type { ModelClient, ModelRequest, ModelResponse } from '../../src/llm/types';

/** A model client whose calls do what `complete` says (each gets the signal stoppable() gives it). */
const innerClient = (complete: (req: ModelRequest) => Promise<ModelResponse>): ModelClient =>
  ({ provider: 'anthropic', models: { chat: 'm', side: 'm' }, complete, close: async () => undefined }) as unknown as ModelClient;

describe('the stoppable model client', () => {
  it('carries a burst of calls in flight without a listener-leak warning, and stops them all at once', async () => {
    const signals: AbortSignal[] = [];
    {
      // A server that never answers: each call waits until its signal aborts.
      const hung = innerClient(
        (req) =>
          new Promise<ModelResponse>((_, reject) => {
            signals.push(req.signal!);
            req.signal!.addEventListener('abort', () => reject(req.signal!.reason), { once: true });
          }),
      );
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

  it("aborts one call on its caller's signal, with the caller's reason, and leaves no listener behind", async () => {
    const seen: AbortSignal[] = [];
    let answered = 0;
    // Answers after 20 ms unless aborted first.
    const inner = innerClient(
      (req) =>
        new Promise<ModelResponse>((resolve, reject) => {
          seen.push(req.signal!);
          const t = setTimeout(() => {
            answered++;
            resolve({ text: 'ok' } as ModelResponse);
          }, 20);
          req.signal!.addEventListener('abort', () => (clearTimeout(t), reject(req.signal!.reason)), { once: true });
        }),
    );
    const client = stoppable(inner);
    const caller = new AbortController();
    const req = (signal?: AbortSignal) => ({ purpose: 'chat', system: [], messages: [], signal }) as unknown as ModelRequest;
    const aborted = client.complete(req(caller.signal));
    const other = client.complete(req());
    caller.abort(new Error('the person deleted the message'));
    await expect(aborted).rejects.toThrow('the person deleted the message');
    await expect(other).resolves.toEqual({ text: 'ok' });
    expect(answered).toBe(1);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);

    // An answered call takes its listener off the caller's signal too.
    const kept = new AbortController();
    await client.complete(req(kept.signal));
    expect(getEventListeners(kept.signal, 'abort')).toHaveLength(0);

    // An already aborted signal, and any call after abortAll, never reach the inner client.
    const calls = seen.length;
    await expect(client.complete(req(AbortSignal.abort(new Error('too late'))))).rejects.toThrow('too late');
    client.abortAll('shutting down');
    await expect(client.complete(req())).rejects.toThrow('model calls stopped: shutting down');
    expect(seen).toHaveLength(calls);
  });
});
