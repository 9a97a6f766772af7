import type { ModelRequest, ModelResponse, ProviderName } from './types';

/** One HTTP attempt against one provider. Retries, limits and timeouts live in client.ts, not here. */
export interface AdapterCall {
  req: ModelRequest;
  model: string;
  maxTokens: number;
  /** Aborts on the caller's signal or on our per-attempt timeout. */
  signal: AbortSignal;
  /** Streams when given. (The client wraps req.onText so it knows whether text was already shown.) */
  onText?: (delta: string) => void;
}

export interface ProviderAdapter {
  readonly provider: ProviderName;
  /** The server it talks to, named when nothing answers there. */
  readonly baseURL: string;
  /** Resolves with the reply, or rejects with the SDK's own error (mapped by errors.ts). */
  send(call: AdapterCall): Promise<ModelResponse>;
  /** Closes its kept-alive connections. */
  close(): Promise<void>;
}
