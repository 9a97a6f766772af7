import type { ModelClient, ModelRequest, ModelResponse } from './types';

/**
 * A model client that can be stopped all at once. At the end of a shutdown budget, requests still
 * waiting on a hung server are aborted (their sockets close, so the process can exit), and any call
 * made afterwards (upkeep moving on to its next job) is refused without reaching the network.
 */
export interface StoppableModelClient extends ModelClient {
  abortAll(reason: string): void;
}

export function stoppable(inner: ModelClient): StoppableModelClient {
  const stop = new AbortController();
  return {
    provider: inner.provider,
    models: inner.models,
    complete(req: ModelRequest): Promise<ModelResponse> {
      if (stop.signal.aborted) return Promise.reject(stop.signal.reason);
      // A signal per call, never the shared one: each call in flight listens on its signal, and a
      // burst of more than ten on one signal makes Node print a leak warning into the terminal.
      return inner.complete({ ...req, signal: AbortSignal.any(req.signal ? [req.signal, stop.signal] : [stop.signal]) });
    },
    close: () => inner.close(),
    abortAll(reason: string) {
      if (!stop.signal.aborted) stop.abort(new Error(`model calls stopped: ${reason}`));
    },
  };
}
