import type { ServerResponse } from 'node:http';
import { conceptVector } from '../../helpers/embedder';
import { sendJson } from './sse';

/**
 * `POST /v1/embeddings` in OpenAI's wire format, for the api mode of recall: vectors come from the
 * tests' deterministic concept embedder (test/helpers/embedder.ts), so a test knows which texts are
 * close. Scripted failures: `fail` answers that many requests with a 500 first, `junk` that many
 * with a 200 whose body is an HTML page (a proxy's), not JSON.
 */
export interface FakeEmbeddings {
  concepts: Record<string, string>;
  dims: number;
  /** Requests still to answer with a 500. */
  fail: number;
  /** Requests still to answer with a 200 that is not JSON. */
  junk: number;
  /** Every request's inputs and model, in arrival order. */
  requests: { model: string; input: string[] }[];
  /**
   * Another cosine scale: each vector gets one more dimension holding √shift (the rest scaled by
   * √(1 − shift)), so two texts' cosine is shift + (1 − shift) × the concept cosine. 0: the plain
   * concept vectors. A model whose unrelated texts score 0.6 rather than 0 looks like this.
   */
  shift: number;
}

export function fakeEmbeddings(): FakeEmbeddings {
  return { concepts: {}, dims: 64, fail: 0, junk: 0, requests: [], shift: 0 };
}

export function sendEmbeddings(state: FakeEmbeddings, raw: string, res: ServerResponse): void {
  let body: { model?: unknown; input?: unknown };
  try {
    body = JSON.parse(raw);
  } catch {
    return sendJson(res, 400, { error: { type: 'invalid_request_error', message: 'body is not JSON' } });
  }
  const input = typeof body.input === 'string' ? [body.input] : body.input;
  if (typeof body.model !== 'string' || !Array.isArray(input) || input.some((t) => typeof t !== 'string')) {
    return sendJson(res, 400, { error: { type: 'invalid_request_error', message: 'model (string) and input (string or string[]) are required' } });
  }
  state.requests.push({ model: body.model, input: input as string[] });
  if (state.fail > 0) {
    state.fail--;
    return sendJson(res, 500, { error: { type: 'server_error', message: 'fake embeddings failure' } });
  }
  if (state.junk > 0) {
    state.junk--;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('<html><body>502 Bad Gateway</body></html>');
    return;
  }
  sendJson(res, 200, {
    object: 'list',
    model: body.model,
    data: (input as string[]).map((t, index) => ({
      object: 'embedding',
      index,
      embedding: onScale(conceptVector(t, state.concepts, state.dims), state.shift),
    })),
    usage: { prompt_tokens: 0, total_tokens: 0 },
  });
}

function onScale(v: Float32Array, shift: number): number[] {
  if (shift <= 0) return Array.from(v);
  const k = Math.sqrt(1 - shift);
  return [...Array.from(v, (x) => x * k), Math.sqrt(shift)];
}
