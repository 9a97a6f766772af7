/**
 * The request pipeline in front of the routes: log every call, check the bot token, apply
 * injected faults (429s, errors), route, answer. Also serves attachment URLs (Discord's CDN).
 *
 * Unknown routes answer 404 with a JSON body and are collected in `unhandled`, so a test author
 * sees at once which endpoint the fake is missing rather than a mysterious discord.js error.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, ClientGone, Errors, type RouteResult, type UploadedFile, parseBody, readRaw, send } from './http';
import { buildRouter } from './rest';
import type { RequestContext, RestDeps } from './restCommon';

export interface RequestRecord {
  seq: number;
  method: string;
  /** Path below /api/v10, without the query string: `/channels/123/messages`. */
  path: string;
  /** Matched template with method, `POST /channels/:channelId/messages`; null when unrouted. */
  route: string | null;
  query: Record<string, string>;
  authorization: string | null;
  /** X-Audit-Log-Reason, when discord.js sent a `reason`. */
  reason: string | null;
  /** Parsed JSON body, or `payload_json` of a multipart body. */
  body: unknown;
  files: UploadedFile[];
  /** 0 while in flight. */
  status: number;
  response: unknown;
  /** Date.now() when the request arrived. */
  at: number;
  durationMs: number;
}

/**
 * `'POST /channels/:channelId/messages'` (route template) or `'POST /channels/123/messages'`
 * (concrete path); without a method, any method. Or a RegExp tested on `METHOD /path`, or a predicate.
 */
export type RequestMatcher = string | RegExp | ((r: RequestRecord) => boolean);

export function requestMatches(m: RequestMatcher, r: RequestRecord): boolean {
  if (typeof m === 'function') return m(r);
  const line = `${r.method} ${r.path}`;
  if (m instanceof RegExp) return m.test(line);
  const [method, target] = m.includes(' ') ? m.split(' ', 2) : [null, m];
  if (method && method.toUpperCase() !== r.method) return false;
  const template = r.route?.split(' ')[1];
  return target === r.path || target === template;
}

export interface Fault {
  matcher: RequestMatcher;
  respond(r: RequestRecord): { status: number; body: unknown; headers?: Record<string, string> };
}

/**
 * A 429 as Discord sends it: `retry-after`, the `x-ratelimit-*` headers and
 * `{ message, retry_after, global }`. Values are exact (Discord rounds `retry-after` up to whole
 * seconds; exact keeps tests fast, and @discordjs/rest reads it with Number()).
 */
export function rateLimitFault(matcher: RequestMatcher, retryAfterSeconds: number, opts: { global?: boolean; scope?: 'user' | 'shared' | 'global' }): Fault {
  return {
    matcher,
    respond: (r) => ({
      status: 429,
      body: { message: 'You are being rate limited.', retry_after: retryAfterSeconds, global: opts.global ?? false },
      headers: {
        'retry-after': String(retryAfterSeconds),
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': (Date.now() / 1000 + retryAfterSeconds).toFixed(3),
        'x-ratelimit-reset-after': String(retryAfterSeconds),
        'x-ratelimit-bucket': `fake-${Buffer.from(r.route ?? r.path)
          .toString('hex')
          .slice(0, 16)}`,
        'x-ratelimit-scope': opts.scope ?? (opts.global ? 'global' : 'user'),
        // @discordjs/rest treats the mere presence of this header as "global".
        ...(opts.global ? { 'x-ratelimit-global': 'true' } : {}),
      },
    }),
  };
}

export function errorFault(matcher: RequestMatcher, error: { status: number; code?: number; message?: string }): Fault {
  return {
    matcher,
    respond: () => ({ status: error.status, body: { message: error.message ?? `fake failure ${error.status}`, code: error.code ?? 0 } }),
  };
}

export interface ServerHooks {
  token(): string;
  onRequest(r: RequestRecord): void;
  onProblem(message: string): void;
}

export class RestServer {
  readonly requests: RequestRecord[] = [];
  readonly unhandled: RequestRecord[] = [];
  private readonly faults: Fault[] = [];
  private readonly router = buildRouter();
  private seq = 0;

  constructor(
    private readonly deps: RestDeps,
    private readonly hooks: ServerHooks,
  ) {}

  /** Answers the next matching request with this fault instead of the route (once). */
  addFault(f: Fault): void {
    this.faults.push(f);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.method === 'GET' && url.pathname.startsWith('/attachments/')) return this.serveAttachment(url.pathname, res);
    const record: RequestRecord = {
      seq: ++this.seq,
      method: req.method ?? 'GET',
      path: url.pathname.replace(/^\/api(\/v\d+)?/, ''),
      route: null,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization ?? null,
      reason: decodeHeader(req.headers['x-audit-log-reason']),
      body: undefined,
      files: [],
      status: 0,
      response: undefined,
      at: Date.now(),
      durationMs: 0,
    };
    this.requests.push(record);
    const started = performance.now();
    let result: RouteResult;
    let headers: Record<string, string> = {};
    try {
      const raw = await readRaw(req);
      const parsed = await parseBody(raw, req.headers['content-type']).catch(() => {
        throw new ApiError(400, 50109, 'The request body contains invalid JSON.');
      });
      record.body = parsed.json;
      record.files = parsed.files;
      ({ result, headers } = await this.route(record, url, parsed));
    } catch (err) {
      result = this.errorResult(err, record);
    }
    record.status = result.status;
    record.response = result.body;
    record.durationMs = performance.now() - started;
    if (!res.destroyed) send(res, result, headers);
    this.hooks.onRequest(record);
  }

  private async route(record: RequestRecord, url: URL, body: RequestContext['body']) {
    const match = this.router.match(record.method, record.path);
    if (match === null || match === 'method') {
      this.unhandled.push(record);
      const status = match === null ? 404 : 405;
      const text = status === 404 ? '404: Not Found' : '405: Method Not Allowed';
      return {
        result: { status, body: { message: `${text} (fake-discord has no route for ${record.method} ${record.path})`, code: 0 } },
        headers: {},
      };
    }
    record.route = `${record.method} ${match.route.template}`;
    if (match.route.auth && record.authorization !== `Bot ${this.hooks.token()}`) throw Errors.unauthorized();
    const faultIndex = this.faults.findIndex((f) => requestMatches(f.matcher, record));
    if (faultIndex >= 0) {
      const [fault] = this.faults.splice(faultIndex, 1);
      const answer = fault.respond(record);
      return { result: { status: answer.status, body: answer.body }, headers: answer.headers ?? {} };
    }
    const ctx: RequestContext = { deps: this.deps, method: record.method, path: record.path, query: url.searchParams, body };
    return { result: await match.route.handler(ctx, match.params), headers: {} };
  }

  private errorResult(err: unknown, record: RequestRecord): RouteResult {
    if (err instanceof ApiError) return { status: err.status, body: err.body };
    // A killed client is not a fake-side problem; log it as nginx's 499 "client closed request".
    if (err instanceof ClientGone) return { status: 499, body: { message: err.message, code: 0 } };
    // A bug in the fake or a test mistake (unknown id passed to a helper): make it loud.
    const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
    this.hooks.onProblem(`500 on ${record.method} ${record.path}: ${message}`);
    return { status: 500, body: { message: `fake-discord internal error: ${message}`, code: 0 } };
  }

  private serveAttachment(pathname: string, res: ServerResponse): void {
    const [, , , attachmentId] = pathname.split('/');
    const attachment = this.deps.state.attachments.get(attachmentId);
    if (!attachment) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, {
      'content-type': attachment.contentType ?? 'application/octet-stream',
      'content-length': String(attachment.size),
    });
    res.end(attachment.content);
  }
}

function decodeHeader(v: string | string[] | undefined): string | null {
  if (typeof v !== 'string') return null;
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}
