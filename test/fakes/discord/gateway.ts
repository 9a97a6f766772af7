/**
 * The fake gateway (ws, JSON encoding, no compression): HELLO → IDENTIFY → READY + GUILD_CREATE,
 * heartbeat ACKs, RESUME with replay of missed dispatches, and the close codes tests need
 * (4000 resumable drop, 4004 bad token, 4014 disallowed intents).
 *
 * Sessions outlive sockets: every dispatch is logged per session with its sequence number, so
 * a client that resumes after a drop gets exactly the events it missed (no loss, no duplicate),
 * the property the resilience tests check.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayIntentBits } from 'discord.js';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { Dispatcher, DispatchOptions } from './actions';
import { shardOf } from './snowflake';

type Json = Record<string, unknown>;

/** IDENTIFY's `shard: [shardId, shardCount]`; [0, 1] (one shard owning every guild) when absent. */
export type Shard = [number, number];

export const PRIVILEGED_INTENTS = GatewayIntentBits.GuildMembers | GatewayIntentBits.GuildPresences | GatewayIntentBits.MessageContent;

export interface GatewayHooks {
  heartbeatIntervalMs: number;
  /** Dispatches kept per session for RESUME; older ones cannot be replayed (→ op 9). */
  replayLimit: number;
  /** A dropped session stays resumable this long (Discord: a few minutes). */
  resumeWindowMs: number;
  token(): string;
  /** Privileged intents switched on "in the developer portal". */
  allowedPrivilegedIntents(): number;
  /** READY and the GUILD_CREATEs for the session's shard, built together so READY's guild list matches (pitfall 3). */
  identify(sessionId: string, shard: Shard): { ready: Json; guildCreates: Json[] };
  /** Members for op 8 REQUEST_GUILD_MEMBERS. */
  guildMembers(guildId: string, userIds: string[] | undefined): Json[];
  onProblem(message: string): void;
}

interface Session {
  id: string;
  seq: number;
  intents: number;
  socket: WebSocket | null;
  disconnectedAt: number | null;
  log: Array<{ s: number; frame: string }>;
  valid: boolean;
  shard: Shard;
}

export interface GatewayFrame {
  op: number;
  d: unknown;
  at: number;
}

export class FakeGateway implements Dispatcher {
  /** Frames received from clients, except heartbeats (IDENTIFY, RESUME, …). */
  readonly received: GatewayFrame[] = [];
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sessions = new Map<string, Session>();
  private readonly socketSession = new Map<WebSocket, Session>();
  /** Sockets the fake itself is closing: their session stays resumable whatever code comes back. */
  private readonly closingByServer = new WeakSet<WebSocket>();

  constructor(private readonly hooks: GatewayHooks) {
    this.wss.on('connection', (ws, req) => this.onConnection(ws, req));
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit('connection', ws, req));
  }

  get identifyCount(): number {
    return this.received.filter((f) => f.op === 2).length;
  }

  get resumeCount(): number {
    return this.received.filter((f) => f.op === 6).length;
  }

  /** Number of sockets currently attached to a live session. */
  get connectedSessions(): number {
    return [...this.sessions.values()].filter((s) => s.valid && s.socket?.readyState === WebSocket.OPEN).length;
  }

  dispatch(event: string, payload: Json, opts: DispatchOptions): void {
    const now = Date.now();
    for (const session of this.sessions.values()) {
      if (session.valid && !session.socket && session.disconnectedAt !== null && now - session.disconnectedAt > this.hooks.resumeWindowMs) {
        session.valid = false;
      }
      if (!session.valid) continue;
      if (opts.intent !== 0 && (session.intents & opts.intent) === 0) continue;
      if (!sessionGetsEvent(session.shard, event, payload)) continue;
      const noContent = (session.intents & GatewayIntentBits.MessageContent) === 0;
      this.push(session, event, noContent && opts.withoutContent ? opts.withoutContent : payload);
    }
  }

  /** Closes every open socket with `code` (4000 = resumable) and resolves once they are closed. */
  async disconnect(code: number, reason = 'fake-discord disconnect'): Promise<void> {
    const open = [...this.wss.clients].filter((ws) => ws.readyState === WebSocket.OPEN);
    await Promise.all(
      open.map(
        (ws) =>
          new Promise<void>((resolve) => {
            ws.once('close', () => resolve());
            this.closingByServer.add(ws);
            ws.close(code, reason);
          }),
      ),
    );
  }

  /** Marks every session unresumable (Discord's op 9 after a long outage). */
  invalidateSessions(): void {
    for (const s of this.sessions.values()) s.valid = false;
  }

  async close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private onConnection(ws: WebSocket, req: IncomingMessage): void {
    const query = new URL(req.url ?? '/', 'ws://fake').searchParams;
    if (query.get('compress') === 'zlib-stream' || (query.get('encoding') ?? 'json') !== 'json') {
      // Pitfall 2: zlib-sync installed turns compression on and there is no option to turn it off.
      this.hooks.onProblem(`gateway client asked for ${req.url}; the fake only speaks uncompressed JSON (is zlib-sync installed?)`);
      ws.close(4012, 'fake-discord supports encoding=json without compression only');
      return;
    }
    ws.on('message', (raw) => this.onFrame(ws, raw));
    ws.on('close', (code) => this.onClose(ws, code));
    ws.on('error', () => undefined);
    // A large interval keeps heartbeats out of test timelines (pitfall 4); ACKs are still sent.
    this.send(ws, { op: 10, d: { heartbeat_interval: this.hooks.heartbeatIntervalMs }, s: null, t: null });
  }

  private onFrame(ws: WebSocket, raw: RawData): void {
    let frame: { op: number; d: unknown };
    try {
      frame = JSON.parse(raw.toString());
    } catch {
      ws.close(4002, 'Error while decoding payload.');
      return;
    }
    if (frame.op !== 1) this.received.push({ op: frame.op, d: frame.d, at: Date.now() });
    switch (frame.op) {
      case 1:
        this.send(ws, { op: 11, d: null, s: null, t: null });
        return;
      case 2:
        this.identify(ws, frame.d as { token?: string; intents?: unknown; shard?: unknown });
        return;
      case 6:
        this.resume(ws, frame.d as { token?: string; session_id?: string; seq?: number });
        return;
      case 8:
        this.requestMembers(ws, frame.d as { guild_id: string | string[]; user_ids?: string | string[]; nonce?: string });
        return;
      default:
        // Presence (3) and voice (4) updates need no answer here.
        return;
    }
  }

  private identify(ws: WebSocket, d: { token?: string; intents?: unknown; shard?: unknown }): void {
    if (this.socketSession.has(ws)) return void ws.close(4005, 'Already authenticated.');
    if (stripBot(d.token) !== this.hooks.token()) return void ws.close(4004, 'Authentication failed.');
    if (typeof d.intents !== 'number') return void ws.close(4013, 'Invalid intent(s).');
    const disallowed = d.intents & PRIVILEGED_INTENTS & ~this.hooks.allowedPrivilegedIntents();
    // Discord refuses privileged intents that are not enabled in the portal with 4014.
    if (disallowed !== 0) return void ws.close(4014, 'Disallowed intent(s).');
    const shard = parseShard(d.shard);
    if (!shard) return void ws.close(4010, 'Invalid shard.');
    const session: Session = {
      id: randomBytes(16).toString('hex'),
      seq: 0,
      intents: d.intents,
      socket: ws,
      disconnectedAt: null,
      log: [],
      valid: true,
      shard,
    };
    this.sessions.set(session.id, session);
    this.socketSession.set(ws, session);
    const { ready, guildCreates } = this.hooks.identify(session.id, shard);
    this.push(session, 'READY', ready);
    for (const g of guildCreates) this.push(session, 'GUILD_CREATE', g);
  }

  private resume(ws: WebSocket, d: { token?: string; session_id?: string; seq?: number }): void {
    if (stripBot(d.token) !== this.hooks.token()) return void ws.close(4004, 'Authentication failed.');
    const session = d.session_id ? this.sessions.get(d.session_id) : undefined;
    const seq = d.seq ?? 0;
    const oldest = session?.log[0]?.s ?? (session ? session.seq + 1 : 0);
    if (!session || !session.valid || seq + 1 < oldest) {
      // op 9 with d=false: not resumable, the client identifies anew.
      this.send(ws, { op: 9, d: false, s: null, t: null });
      return;
    }
    if (session.socket && session.socket !== ws && session.socket.readyState === WebSocket.OPEN) {
      this.closingByServer.add(session.socket);
      session.socket.close(4000, 'Session resumed elsewhere');
    }
    session.socket = ws;
    session.disconnectedAt = null;
    this.socketSession.set(ws, session);
    for (const entry of session.log) if (entry.s > seq) ws.send(entry.frame);
    this.push(session, 'RESUMED', { _trace: ['fake-discord'] });
  }

  private requestMembers(ws: WebSocket, d: { guild_id: string | string[]; user_ids?: string | string[]; nonce?: string }): void {
    const session = this.socketSession.get(ws);
    if (!session) return;
    const guildIds = Array.isArray(d.guild_id) ? d.guild_id : [d.guild_id];
    const userIds = d.user_ids === undefined ? undefined : Array.isArray(d.user_ids) ? d.user_ids : [d.user_ids];
    for (const guildId of guildIds) {
      this.push(session, 'GUILD_MEMBERS_CHUNK', {
        guild_id: guildId,
        members: this.hooks.guildMembers(guildId, userIds),
        chunk_index: 0,
        chunk_count: 1,
        not_found: [],
        ...(d.nonce ? { nonce: d.nonce } : {}),
      });
    }
  }

  private onClose(ws: WebSocket, code: number): void {
    const session = this.socketSession.get(ws);
    this.socketSession.delete(ws);
    if (!session || session.socket !== ws) return;
    session.socket = null;
    session.disconnectedAt = Date.now();
    // A client closing with 1000/1001 ends its session on Discord; other codes keep it resumable.
    if (!this.closingByServer.has(ws) && (code === 1000 || code === 1001)) session.valid = false;
  }

  /** Sequence numbers increase per session and are logged for replay (pitfall 6). */
  private push(session: Session, t: string, d: Json): void {
    const s = ++session.seq;
    const frame = JSON.stringify({ op: 0, t, s, d });
    session.log.push({ s, frame });
    if (session.log.length > this.hooks.replayLimit) session.log.splice(0, session.log.length - this.hooks.replayLimit);
    if (session.socket?.readyState === WebSocket.OPEN) session.socket.send(frame);
  }

  private send(ws: WebSocket, frame: Json): void {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
  }
}

function parseShard(raw: unknown): Shard | null {
  if (raw === undefined || raw === null) return [0, 1];
  if (!Array.isArray(raw) || raw.length !== 2 || !raw.every((n) => Number.isInteger(n))) return null;
  const [id, count] = raw as Shard;
  return count >= 1 && id >= 0 && id < count ? [id, count] : null;
}

/** Like Discord: a guild's events go to the shard owning it; events without a guild (DMs) to shard 0. */
export function sessionGetsEvent(shard: Shard, event: string, payload: Json): boolean {
  const guildId = typeof payload.guild_id === 'string' ? payload.guild_id : event.startsWith('GUILD_') && typeof payload.id === 'string' ? payload.id : null;
  return guildId === null ? shard[0] === 0 : shardOf(guildId, shard[1]) === shard[0];
}

function stripBot(token: string | undefined): string | undefined {
  return token?.replace(/^Bot\s+/i, '');
}
