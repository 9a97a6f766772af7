/**
 * Fake Anthropic + OpenAI servers for tests and benches: real wire formats for the real SDKs,
 * prefix caching that is measured (not assumed), scripted replies and errors, recorded requests.
 *
 *   const fake = await startFakeModelServer({ latencyMs: 20 });
 *   fake.enqueue('hello', { error: { status: 429 }, retryAfterMs: 5 });
 *   // ANTHROPIC_BASE_URL = fake.anthropicBaseURL, OPENAI_BASE_URL = fake.openaiBaseURL
 *   ...
 *   await fake.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicBlocks, describeAnthropic, sendAnthropicError, sendAnthropicReply, validateAnthropic } from './anthropicRoute';
import { describeOpenAI, sendOpenAIError, sendOpenAIReply, serializeOpenAI, validateOpenAI } from './openaiRoute';
import { AutoPrefixCache, BreakpointPrefixCache } from './prefixCache';
import { isBrokenReply, sendBroken, type FakeBrokenReply } from './broken';
import { sendJson } from './sse';
import { FakeEmbeddings, fakeEmbeddings, sendEmbeddings } from './embeddingsRoute';
import { estimateTokens } from './tokens';
import {
  isErrorReply,
  type FakeApi,
  type FakeErrorReply,
  type FakeHandler,
  type FakeReply,
  type FakeRequest,
  type FakeTextReply,
  type RecordedRequest,
} from './types';

export interface FakeModelServerOptions {
  /** Answers requests when the queue (enqueue) is empty. Default: a short echo of the last user turn. */
  handler?: FakeHandler;
  /** Wait before every answer, like a real network round trip (benches use 20). */
  latencyMs?: number;
  /** The fake's clock, for cache expiry and `at`; inject one to test the 5-minute TTL. */
  now?: () => number;
  /** Anthropic: shortest prefix (estimated tokens) a breakpoint caches. Default 1024. */
  minCacheableTokens?: number;
  /** OpenAI: shortest cached prefix and the step above it. Defaults 1024 / 128. */
  openaiMinCachedTokens?: number;
  openaiCacheStepTokens?: number;
  /** Cache lifetime on the fake clock. Default five minutes. */
  cacheTtlMs?: number;
  /** When set, any other key gets a 401 from either API. */
  apiKey?: string;
  /** When set, prompts longer than this (estimated tokens) get the provider's context-too-long 400. */
  contextWindowTokens?: number;
}

export interface FakeModelServer {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** For `new Anthropic({ baseURL })` / ANTHROPIC_BASE_URL: no /v1. */
  readonly anthropicBaseURL: string;
  /** For `new OpenAI({ baseURL })` / OPENAI_BASE_URL: includes /v1. */
  readonly openaiBaseURL: string;
  /** Every request received, in arrival order, with the status and usage sent back. */
  readonly requests: RecordedRequest[];
  /** Replies used first-in first-out, before the handler. */
  enqueue(...replies: FakeReply[]): void;
  setHandler(handler: FakeHandler): void;
  /** `POST /v1/embeddings`: its vectors' concepts, scripted failures and the requests received. */
  readonly embeddings: FakeEmbeddings;
  /** Requests currently being answered (waiting out latency or streaming). */
  inFlight(): number;
  /** Highest inFlight() seen so far. */
  maxInFlight(): number;
  clearCache(): void;
  /** Drops every connection (closeAllConnections) and pending timer, then stops listening. */
  close(): Promise<void>;
}

const DEFAULT_TTL_MS = 5 * 60_000;

export const echoHandler: FakeHandler = (req) => `fake reply to: ${req.lastUserText.slice(0, 80)}`;

/** Starts the fake on 127.0.0.1 on a free port. Serves POST /v1/messages and POST /v1/chat/completions. */
export async function startFakeModelServer(opts: FakeModelServerOptions = {}): Promise<FakeModelServer> {
  const now = opts.now ?? Date.now;
  const ttlMs = opts.cacheTtlMs ?? DEFAULT_TTL_MS;
  const anthropicCache = new BreakpointPrefixCache({ now, ttlMs, minTokens: opts.minCacheableTokens ?? 1024 });
  const openaiCache = new AutoPrefixCache({ now, ttlMs, minTokens: opts.openaiMinCachedTokens ?? 1024, stepTokens: opts.openaiCacheStepTokens ?? 128 });
  const queue: FakeReply[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  let handler = opts.handler ?? echoHandler;
  const embeddings = fakeEmbeddings();
  let seq = 0;
  let inFlight = 0;
  let maxInFlight = 0;

  /** A wait that close() cuts short, so no timer outlives the server. */
  const wait = (ms: number) =>
    ms <= 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const entry = { timer: setTimeout(() => (timers.delete(entry), resolve()), ms), resolve };
          timers.add(entry);
        });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const api: FakeApi | undefined =
      req.method === 'POST' && req.url?.startsWith('/v1/messages')
        ? 'anthropic'
        : req.method === 'POST' && req.url?.startsWith('/v1/chat/completions')
          ? 'openai'
          : undefined;
    const raw = await readBody(req);
    if (req.method === 'POST' && req.url?.startsWith('/v1/embeddings')) return sendEmbeddings(embeddings, raw, res);
    if (!api) return sendJson(res, 404, { error: { type: 'not_found_error', message: `fake model server: no route ${req.method} ${req.url}` } });
    let body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
    try {
      body = JSON.parse(raw);
    } catch {
      return sendJson(res, 400, { error: { type: 'invalid_request_error', message: 'body is not JSON' } });
    }
    const n = ++seq;
    const described = api === 'anthropic' ? describeAnthropic(body) : describeOpenAI(body);
    const fakeReq: FakeRequest = {
      api,
      path: req.url ?? '',
      headers: flatHeaders(req),
      body,
      ...described,
      lastUserText: [...described.messages].reverse().find((m) => m.role === 'user')?.text ?? '',
      at: now(),
    };
    const record: RecordedRequest = { ...fakeReq, status: 0 };
    requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.clientClosed = true;
    });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      const ids = { request: `req_fake_${n}`, message: `msg_fake_${n}`, completion: `chatcmpl-fake-${n}`, created: Math.floor(now() / 1000) };
      const sendError = (reply: FakeErrorReply) => {
        record.status = reply.error.status;
        const headers = { ...retryHeaders(reply), ...reply.headers };
        if (api === 'anthropic') sendAnthropicError(res, reply, ids.request, headers);
        else sendOpenAIError(res, reply, ids.request, headers);
      };
      if (opts.apiKey !== undefined && !hasKey(fakeReq.headers, opts.apiKey)) {
        await wait(opts.latencyMs ?? 0);
        return sendError({ error: { status: 401, message: 'invalid x-api-key' } });
      }
      const blocks = api === 'anthropic' ? anthropicBlocks(body) : [];
      const invalid =
        api === 'anthropic'
          ? validateAnthropic(body, blocks, opts.contextWindowTokens)
          : validateOpenAI(body, estimateTokens(serializeOpenAI(body)), opts.contextWindowTokens);
      const reply = invalid ? { error: invalid } : normalise(queue.length > 0 ? queue.shift()! : await handler(fakeReq));
      await wait((opts.latencyMs ?? 0) + (reply.delayMs ?? 0));
      if (res.destroyed) return;
      if (isBrokenReply(reply)) {
        record.status = reply.broken === 'hang' ? 0 : 200;
        return await sendBroken(res, reply.broken, () => wait(24 * 3600_000), { api, stream: fakeReq.stream });
      }
      if (isErrorReply(reply)) return sendError(reply);
      record.status = 200;
      record.usage =
        api === 'anthropic' ? sendAnthropicReply(res, body, reply, anthropicCache, blocks, ids) : sendOpenAIReply(res, body, reply, openaiCache, ids);
    } finally {
      inFlight--;
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // A broken handler is a test bug: answer at once with a status clients do not retry (400),
      // naming the failure, rather than hang the SDK or trigger retries that hide it.
      sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: `fake model server handler failed: ${String(err)}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    anthropicBaseURL: url,
    openaiBaseURL: `${url}/v1`,
    requests,
    embeddings,
    enqueue: (...replies) => void queue.push(...replies),
    setHandler: (h) => void (handler = h),
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    clearCache: () => {
      anthropicCache.clear();
      openaiCache.clear();
    },
    close: async () => {
      for (const t of timers) {
        clearTimeout(t.timer);
        t.resolve();
      }
      timers.clear();
      // The SDKs keep connections alive; without this, close() waits for them to time out.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function normalise(reply: FakeReply): FakeTextReply | FakeErrorReply | FakeBrokenReply {
  return typeof reply === 'string' ? { text: reply } : reply;
}

function retryHeaders(reply: FakeErrorReply): Record<string, string> {
  const h: Record<string, string> = {};
  if (reply.retryAfterMs !== undefined) h['retry-after-ms'] = String(reply.retryAfterMs);
  if (reply.retryAfterSeconds !== undefined) h['retry-after'] = String(reply.retryAfterSeconds);
  return h;
}

/** Anthropic SDK 1.x sends `Authorization: Bearer`, 0.x `x-api-key`; OpenAI sends Bearer. */
function hasKey(headers: Record<string, string>, key: string): boolean {
  return headers.authorization === `Bearer ${key}` || headers['x-api-key'] === key;
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}
