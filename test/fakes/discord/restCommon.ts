/**
 * Shared pieces of the REST routes: the request context, lookups that answer Discord's 404s,
 * permission checks that answer Discord's 403s, and message-body validation with Discord's
 * limits (2 000 characters, 10 embeds / 6 000 embed characters, 10 files, upload size).
 */
import type { Actions, UploadInput } from './actions';
import { validateComponents } from './components';
import { Errors, type ParsedBody, type RouteResult, ok } from './http';
import { messagePayload } from './payloads';
import type { InteractionRegistry } from './interactions';
import { allowedMentionsError } from './mentions';
import { type PermissionName, has } from './permissions';
import type { AllowedMentions, FakeChannel, FakeMessage, FakeState } from './state';

export interface FakeLimits {
  /** Discord: 250 pins per channel. */
  maxPins: number;
  /** Per-file upload limit (Discord's default for bots: 10 MiB). */
  maxUploadBytes: number;
  /** Time Discord allows before an interaction must be acknowledged (3 s). */
  interactionAckMs: number;
}

export interface RestDeps {
  state: FakeState;
  actions: Actions;
  interactions: InteractionRegistry;
  limits: FakeLimits;
  gatewayUrl(): string;
  applicationFlags(): number;
  /** `session_start_limit.max_concurrency` of /gateway/bot: identify buckets are `shard id % this`. */
  maxConcurrency: number;
}

export interface RequestContext {
  deps: RestDeps;
  method: string;
  path: string;
  query: URLSearchParams;
  body: ParsedBody;
}

export type Handler = (ctx: RequestContext, params: Record<string, string>) => RouteResult | Promise<RouteResult>;

export function channelOr404(ctx: RequestContext, id: string): FakeChannel {
  const c = ctx.deps.state.channels.get(id);
  if (!c) throw Errors.unknownChannel();
  return c;
}

export function messageOr404(ctx: RequestContext, channel: FakeChannel, id: string): FakeMessage {
  const m = ctx.deps.state.messages.get(id);
  if (!m || m.channelId !== channel.id) throw Errors.unknownMessage();
  return m;
}

/**
 * The bot's permission check: 50001 Missing Access when it cannot even see the channel,
 * 50013 Missing Permissions when it sees it but lacks one of `needed`.
 */
export function requirePermissions(ctx: RequestContext, channel: FakeChannel, ...needed: PermissionName[]): bigint {
  const { state } = ctx.deps;
  const bits = state.permissionsIn(channel.id, state.bot.id);
  if (!has(bits, 'ViewChannel')) throw Errors.missingAccess();
  for (const p of needed) if (!has(bits, p)) throw Errors.missingPermissions();
  return bits;
}

export function jsonBody<T>(ctx: RequestContext): T {
  return (ctx.body.json ?? {}) as T;
}

export interface MessageBody {
  content?: string;
  embeds?: Array<Record<string, unknown>>;
  components?: unknown[];
  allowed_mentions?: AllowedMentions;
  message_reference?: { message_id?: string; channel_id?: string; guild_id?: string; fail_if_not_exists?: boolean };
  nonce?: string | number;
  enforce_nonce?: boolean;
  tts?: boolean;
  flags?: number;
  sticker_ids?: string[];
  poll?: unknown;
  attachments?: Array<{ id: string | number; filename?: string; description?: string }>;
}

/** Uploaded files with the filename/description overrides from `attachments[]` (matched by index id). */
export function uploadsOf(ctx: RequestContext, body: MessageBody): UploadInput[] {
  return ctx.body.files.map((f, i) => {
    const index = /\[(\d+)\]/.exec(f.field)?.[1] ?? String(i);
    const meta = body.attachments?.find((a) => String(a.id) === index);
    return {
      filename: meta?.filename ?? f.filename,
      content: f.content,
      contentType: f.contentType,
      description: meta?.description ?? null,
    };
  });
}

/** Discord's message limits; `edit` skips the emptiness check (edits may blank content). */
export function validateMessage(ctx: RequestContext, body: MessageBody, uploads: UploadInput[], opts: { edit: boolean }): void {
  const content = body.content ?? '';
  if (typeof content !== 'string') throw Errors.invalidForm('content', 'BASE_TYPE_STRING', 'Must be a string.');
  if (content.length > 2000) throw Errors.invalidForm('content', 'BASE_TYPE_MAX_LENGTH', 'Must be 2000 or fewer in length.');
  const embeds = body.embeds ?? [];
  if (embeds.length > 10) throw Errors.invalidForm('embeds', 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.');
  if (embeds.reduce((n, e) => n + embedChars(e), 0) > 6000) {
    throw Errors.invalidForm('embeds', 'MAX_EMBED_SIZE_EXCEEDED', 'Embed size exceeds maximum size of 6000');
  }
  for (const e of embeds) {
    if (typeof e.description === 'string' && e.description.length > 4096) {
      throw Errors.invalidForm('embeds', 'BASE_TYPE_MAX_LENGTH', 'Must be 4096 or fewer in length.');
    }
  }
  if (uploads.length > 10) throw Errors.invalidForm('files', 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.');
  for (const u of uploads) {
    const size = typeof u.content === 'string' ? Buffer.byteLength(u.content) : u.content.length;
    if (size > ctx.deps.limits.maxUploadBytes) throw Errors.tooLarge();
  }
  validateComponents(body.components);
  const mentionsProblem = allowedMentionsError(body.allowed_mentions);
  if (mentionsProblem) throw Errors.invalidForm('allowed_mentions', 'ALLOWED_MENTIONS_PARSE_EXCLUSIVE', mentionsProblem);
  const hasBody =
    content.trim().length > 0 || embeds.length > 0 || uploads.length > 0 || !!body.sticker_ids?.length || !!body.poll || !!body.components?.length;
  if (!opts.edit && !hasBody) throw Errors.emptyMessage();
}

function embedChars(e: Record<string, unknown>): number {
  const str = (v: unknown) => (typeof v === 'string' ? v.length : 0);
  const fields = Array.isArray(e.fields) ? (e.fields as Array<Record<string, unknown>>) : [];
  return (
    str(e.title) +
    str(e.description) +
    str((e.footer as Record<string, unknown> | undefined)?.text) +
    str((e.author as Record<string, unknown> | undefined)?.name) +
    fields.reduce((n, f) => n + str(f.name) + str(f.value), 0)
  );
}

/** PATCH semantics for attachments: `attachments[]` lists the existing ones to keep. */
export function keptAttachments(message: FakeMessage, body: MessageBody) {
  if (!body.attachments) return undefined;
  const keep = new Set(body.attachments.map((a) => String(a.id)));
  return message.attachments.filter((a) => keep.has(a.id));
}

/**
 * PATCH of a message's content, embeds, components and files (a channel message or an interaction
 * response); `flags` picks the message's new flags from the body.
 */
export function editFromBody(ctx: RequestContext, message: FakeMessage, flags: (body: MessageBody) => number | undefined): RouteResult {
  const { state, actions } = ctx.deps;
  const body = jsonBody<MessageBody>(ctx);
  const uploads = uploadsOf(ctx, body);
  validateMessage(ctx, body, uploads, { edit: true });
  actions.editMessage(message, {
    content: body.content,
    embeds: body.embeds,
    components: body.components,
    attachments: keptAttachments(message, body),
    newFiles: uploads,
    flags: flags(body),
    allowedMentions: body.allowed_mentions,
  });
  return ok(messagePayload(state, message, { gateway: false }));
}

export function limitParam(ctx: RequestContext, def: number, max: number): number {
  const raw = ctx.query.get('limit');
  if (raw === null) return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw Errors.invalidForm('limit', 'NUMBER_TYPE_MAX', `int value should be between 1 and ${max}.`);
  }
  return n;
}
