/**
 * HTTP plumbing for the fake REST API: a tiny router, request-body parsing (JSON and the
 * multipart/form-data discord.js uses for files), Discord-shaped errors and response writing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A Discord JSON error: `{ message, code, errors? }` with an HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: unknown,
  ) {
    super(message);
  }

  get body(): Record<string, unknown> {
    return { message: this.message, code: this.code, ...(this.errors ? { errors: this.errors } : {}) };
  }
}

/** The error bodies Discord really sends (codes from the API docs' JSON error table). */
export const Errors = {
  unauthorized: () => new ApiError(401, 0, '401: Unauthorized'),
  unknownChannel: () => new ApiError(404, 10003, 'Unknown Channel'),
  unknownGuild: () => new ApiError(404, 10004, 'Unknown Guild'),
  unknownMember: () => new ApiError(404, 10007, 'Unknown Member'),
  unknownMessage: () => new ApiError(404, 10008, 'Unknown Message'),
  unknownUser: () => new ApiError(404, 10013, 'Unknown User'),
  unknownEmoji: () => new ApiError(400, 10014, 'Unknown Emoji'),
  unknownWebhook: () => new ApiError(404, 10015, 'Unknown Webhook'),
  unknownCommand: () => new ApiError(404, 10063, 'Unknown application command'),
  unknownInteraction: () => new ApiError(404, 10062, 'Unknown interaction'),
  alreadyAcknowledged: () => new ApiError(400, 40060, 'Interaction has already been acknowledged.'),
  missingAccess: () => new ApiError(403, 50001, 'Missing Access'),
  missingPermissions: () => new ApiError(403, 50013, 'Missing Permissions'),
  cannotEditOthers: () => new ApiError(403, 50005, 'Cannot edit a message authored by another user'),
  emptyMessage: () => new ApiError(400, 50006, 'Cannot send an empty message'),
  nonTextChannel: () => new ApiError(400, 50008, 'Cannot send messages in a non-text channel'),
  archivedThread: () => new ApiError(400, 50083, 'Thread is archived'),
  maxPins: (limit: number) => new ApiError(400, 30003, `Maximum number of pins reached (${limit})`),
  tooLarge: () => new ApiError(413, 40005, 'Request entity too large'),
  /** 50035 with Discord's nested `errors` shape: `{ field: { _errors: [{ code, message }] } }`. */
  invalidForm: (field: string, code: string, message: string) => new ApiError(400, 50035, 'Invalid Form Body', { [field]: { _errors: [{ code, message }] } }),
};

export interface UploadedFile {
  /** Form field name, e.g. `files[0]`. */
  field: string;
  filename: string;
  contentType: string | null;
  content: Buffer;
}

export interface ParsedBody {
  /** JSON body, or `payload_json` of a multipart body; undefined when there was none. */
  json: unknown;
  files: UploadedFile[];
}

/** The client went away mid-request (e.g. a bot child process killed by a crash-safety test). */
export class ClientGone extends Error {}

export function readRaw(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => reject(new ClientGone('client aborted the request')));
    req.on('close', () => {
      if (!req.complete) reject(new ClientGone('client closed the connection mid-request'));
    });
  });
}

/**
 * discord.js sends files as multipart/form-data (`payload_json` + `files[N]`). busboy is not
 * installed; Node 20's WHATWG `Response#formData()` parses multipart correctly, so use that.
 */
export async function parseBody(raw: Buffer, contentType: string | undefined): Promise<ParsedBody> {
  if (raw.length === 0) return { json: undefined, files: [] };
  if (contentType?.startsWith('multipart/form-data')) {
    const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
    let json: unknown;
    const files: UploadedFile[] = [];
    for (const [field, value] of form.entries()) {
      if (typeof value === 'string') {
        if (field === 'payload_json') json = JSON.parse(value);
        continue;
      }
      files.push({
        field,
        filename: value.name,
        contentType: value.type || null,
        content: Buffer.from(await value.arrayBuffer()),
      });
    }
    return { json, files };
  }
  return { json: JSON.parse(raw.toString('utf8')), files: [] };
}

export interface RouteResult {
  status: number;
  body?: unknown;
}

export const noContent = (): RouteResult => ({ status: 204 });
export const ok = (body: unknown, status = 200): RouteResult => ({ status, body });

/**
 * Writes a response. A 204 goes out with no body and NO content-type: @discordjs/rest
 * JSON-parses any response labelled JSON and an empty body then throws "Unexpected end of
 * JSON input" (notes §4 pitfall 1).
 */
export function send(res: ServerResponse, result: RouteResult, headers: Record<string, string> = {}): void {
  if (result.status === 204 || result.body === undefined) {
    res.writeHead(result.status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(result.body);
  res.writeHead(result.status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

interface Route<C> {
  method: string;
  /** Template as written, e.g. `/channels/:channelId/messages`; also what request logs show. */
  template: string;
  segments: string[];
  auth: boolean;
  handler: (ctx: C, params: Record<string, string>) => RouteResult | Promise<RouteResult>;
}

export interface RouteMatch<C> {
  route: Route<C>;
  params: Record<string, string>;
}

/**
 * Matches `/a/:b/c` templates. When several templates match, the one with a literal earliest
 * wins, so `/channels/:id/messages/pins` beats `/channels/:id/messages/:messageId` and
 * `.../@me` beats `.../:userId` regardless of registration order.
 */
export class Router<C> {
  private readonly routes: Route<C>[] = [];

  add(method: string, template: string, handler: Route<C>['handler'], opts: { auth?: boolean } = {}): void {
    this.routes.push({ method, template, segments: template.split('/').filter(Boolean), auth: opts.auth ?? true, handler });
  }

  /** `null`: no template matches the path; `'method'`: the path exists with other methods (405). */
  match(method: string, path: string): RouteMatch<C> | 'method' | null {
    const parts = path.split('/').filter(Boolean);
    const candidates: Array<RouteMatch<C> & { rank: string }> = [];
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (params) candidates.push({ route, params, rank: route.segments.map((s) => (s.startsWith(':') ? '1' : '0')).join('') });
    }
    if (candidates.length === 0) return null;
    const forMethod = candidates.filter((c) => c.route.method === method).sort((a, b) => a.rank.localeCompare(b.rank));
    return forMethod[0] ?? 'method';
  }
}

function matchSegments(template: string[], parts: string[]): Record<string, string> | null {
  if (template.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const t = template[i];
    if (t.startsWith(':')) params[t.slice(1)] = decodeURIComponent(parts[i]);
    else if (t !== parts[i]) return null;
  }
  return params;
}
