import { Agent, request } from 'undici';

/**
 * The `fetch` both SDKs are given: undici's `request` under a fetch-shaped surface. Node's global
 * fetch is the same library behind the WHATWG fetch algorithm and web streams: ~1.5 ms of CPU per
 * model call against ~0.65 for this one (`node bench/http-client.js`, 2026-11-27). Under a burst the
 * HTTP client was a third of the turn thread's CPU, every channel's request waiting behind it.
 *
 * What it keeps of fetch, because the SDKs and errors.ts rely on it: an aborted signal rejects with
 * the signal's reason (the SDKs tell a timeout from a caller's abort by it); a request that fails
 * rejects with `TypeError('fetch failed')`, the socket's error (ECONNREFUSED, …) as its cause, which
 * netErrors.ts reads; a connection that closes while the body is read errors the body with fetch's own `TypeError('terminated')`, the
 * socket's error as its cause; bodies stream (server-sent events arrive as they come); redirects
 * are followed. What it leaves out: cookies, CORS, caches and content decoding (it sends no
 * accept-encoding, so no server compresses).
 */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const MAX_REDIRECTIONS = 5;
/** As Node's fetch: a server that does not accept the connection in 10 s is reported as unreachable. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Statuses whose response may not carry a body (the Response constructor refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

export function createHttpFetch(): { fetch: FetchLike; close: () => Promise<void> } {
  // One pool of kept-alive connections per client (the SDK's default of the global agent is per process).
  const agent = new Agent({ connect: { timeout: CONNECT_TIMEOUT_MS } });
  const fetch: FetchLike = async (input, init = {}) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const res = await request(url, {
      method: (init.method ?? 'GET').toUpperCase() as 'GET',
      headers: headerRecord(init.headers),
      body: bodyOf(init.body),
      signal: init.signal ?? undefined,
      dispatcher: agent,
      maxRedirections: MAX_REDIRECTIONS,
    }).catch((err: unknown) => {
      if (init.signal?.aborted) throw init.signal.reason;
      // fetch's shape: the socket's error (its code says why) as the cause of "fetch failed".
      throw new TypeError('fetch failed', { cause: err });
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      else if (value !== undefined) headers.append(name, value);
    }
    if (NO_BODY.has(res.statusCode) || init.method?.toUpperCase() === 'HEAD') {
      res.body.resume();
      return new Response(null, { status: res.statusCode, headers });
    }
    return new Response(bodyStream(res.body), { status: res.statusCode, headers });
  };
  return { fetch, close: () => agent.close() };
}

/** The response body as a web stream, pulled chunk by chunk from undici's readable. */
function bodyStream(body: AsyncIterable<Uint8Array> & { destroy(err?: Error): void }): ReadableStream<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (err) {
        // fetch's words for a body cut short: errors.ts and the SDKs' stream helpers look for them.
        controller.error(new TypeError('terminated', { cause: err }));
      }
    },
    cancel(reason) {
      body.destroy(reason instanceof Error ? reason : undefined);
    },
  });
}

function headerRecord(h: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  const entries = h instanceof Headers ? h.entries() : Array.isArray(h) ? h : Object.entries(h);
  for (const [k, v] of entries) out[k.toLowerCase()] = typeof v === 'string' ? v : [...v].join(', ');
  return out;
}

/** The SDKs send JSON strings (and, for uploads we never make, form data or streams). */
function bodyOf(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError(`the model client sends only string or byte bodies, not ${Object.prototype.toString.call(body)}`);
}
