import type { ModelClient, ModelRequest, ModelResponse } from './types';

/**
 * A model client that can be stopped all at once. At the end of a shutdown budget, requests still
 * waiting on a hung server are aborted (their sockets close, so the process can exit), and any call
 * made afterwards (upkeep moving on to its next job) is refused without reaching the network.
 */
export interface StoppableModelClient extends ModelClient {
  abortAll(reason: string): void;
}

/** A call refused or cut short because the process is stopping: expected, the stop's own line says so. */
export class ModelCallsStoppedError extends Error {
  constructor(reason: string) {
    super(`model calls stopped: ${reason}`);
    this.name = 'ModelCallsStoppedError';
  }
}

export function stoppable(inner: ModelClient): StoppableModelClient {
  let stopped: Error | undefined;
  /** The calls in flight, each with its own controller. */
  const inFlight = new Set<AbortController>();
  return {
    provider: inner.provider,
    models: inner.models,
    complete(req: ModelRequest): Promise<ModelResponse> {
      if (stopped) return Promise.reject(stopped);
      if (req.signal?.aborted) return Promise.reject(req.signal.reason);
      // A controller per call, never one shared signal: each call in flight listens on its signal, and
      // a burst of more than ten on one signal makes Node print a leak warning into the terminal.
      // (AbortSignal.any did this too, at several times the cost per call.)
      const ac = new AbortController();
      const forward = () => ac.abort(req.signal!.reason);
      req.signal?.addEventListener('abort', forward, { once: true });
      inFlight.add(ac);
      return inner.complete({ ...req, signal: ac.signal }).finally(() => {
        inFlight.delete(ac);
        req.signal?.removeEventListener('abort', forward);
      });
    },
    close: () => inner.close(),
    abortAll(reason: string) {
      if (stopped) return;
      stopped = new ModelCallsStoppedError(reason);
      for (const ac of inFlight) ac.abort(stopped);
    },
  };
}
