import crypto from 'node:crypto';
import http from 'node:http';
import { closeServer, listenOn } from '../shared/httpServer';
import type { TLSSocket } from 'node:tls';
import { folderLayout } from '../memory/layout';
import type { RecallService } from '../recall/service';
import { ChannelStore } from '../memory/store';
import { SignedCache, unitSignature } from './cache';
import { auditFlags } from './auditFlags';
import { Condensation, Names, ParseCache, readCondensations, readContextData, readMemory, Unit } from './data';
import { listConversations, readServerNames } from '../memory/dataRootIndex';
import { readTextOrNull as readText } from '../memory/dataFiles';
import { createMarkdown, page } from './html';
import { condensationBody, searchBody, SearchHit, ViewCtx } from './views';
import { channelBody, contextBody, historyBody } from './channelView';
import { HomeCard, homeBody, type HomeQuery } from './homeView';
import { channelDigest } from './digest';
import { EMPTY_CONTEXT, type ContextData } from '../condense/knowledge/contextData';
import { parseDay } from '../condense/knowledge/decisionsAsOf';
import type { WindowFigures } from './recallHealth';
import { packageBody, PackageRow, packagesBody } from './packageViews';
import { readRecallFigures, readRecallHealth } from './recallHealthData';
import { recallHealthSection } from './recallHealthView';
import { listPackages, serversWithPackages } from '../packages/library';
import { explainPackage } from '../packages/explain';
import { serverFromLabel } from '../packages/refs';
import { isPackageName } from '../memory/paths';

export interface DashboardOptions {
  root: string;
  host: string;
  port: number;
  /** Required (and checked on every request) when set; the CLI insists on it off loopback. */
  token?: string;
  recall: RecallService;
  /** `--include-private`: private threads are shown too; without it, none is. */
  includePrivate?: boolean;
  /**
   * `--trust-proxy`: the addresses of reverse proxies whose `X-Forwarded-Proto` is believed (the
   * token's cookie is then Secure behind their TLS); anyone else's header is ignored.
   */
  trustProxy?: string[];
  /** "Now" for the channel page's recall health (its last 7 and 30 days); the system clock by default. */
  clock?: () => Date;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function hostAllowed(header: string | undefined, bound: string): boolean {
  if (!header) return false;
  const name = header
    .replace(/:\d+$/, '')
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase();
  return isLoopback(name) || name === bound.toLowerCase();
}

function tokenOk(req: http.IncomingMessage, url: URL, token: string): boolean {
  const given = [
    String(req.headers['x-minutes-token'] ?? ''),
    String(req.headers.authorization ?? '').replace(/^Bearer\s+/i, ''),
    url.searchParams.get('token') ?? '',
    /(?:^|;\s*)minutes_token=([^;]*)/.exec(String(req.headers.cookie ?? ''))?.[1] ?? '',
  ];
  const want = Buffer.from(token);
  return given.some((g) => {
    let v = g;
    try {
      v = decodeURIComponent(g);
    } catch {
      /* as given */
    }
    const b = Buffer.from(v);
    return b.length === want.length && crypto.timingSafeEqual(b, want);
  });
}

/** `::ffff:127.0.0.1` (an IPv4 peer on a dual-stack socket) is 127.0.0.1. */
function peerAddress(address: string | undefined): string {
  return (address ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
}

/**
 * Whether the browser reached us over TLS: on a TLS socket, or through a proxy the operator named
 * that says so. Its own value is the last one: a proxy that appends writes after what the client sent.
 */
export function cameOverTls(req: http.IncomingMessage, trustProxy: readonly string[] = []): boolean {
  if ((req.socket as TLSSocket).encrypted === true) return true;
  if (!trustProxy.length || !trustProxy.map(peerAddress).includes(peerAddress(req.socket.remoteAddress))) return false;
  const proto = String(req.headers['x-forwarded-proto'] ?? '')
    .split(',')
    .at(-1)!
    .trim()
    .toLowerCase();
  return proto === 'https';
}

async function unitLabel(root: string, u: Unit): Promise<{ label: string; guild: string }> {
  if (!u.guildId) return { label: u.key, guild: 'console' };
  const n = await readServerNames(root, u.guildId);
  const ch = n.channels[u.channelId!] ? `#${n.channels[u.channelId!]}` : u.channelId!;
  const label = u.threadId ? `${ch} › private thread ${n.channels[u.threadId] ?? u.threadId}` : ch;
  return { label, guild: n.guild ?? u.guildId };
}

/**
 * The dashboard: a read-only HTTP server over the data root. Every URL is matched against the
 * listing of the root (ids the store would accept); nothing is ever written.
 */
export function createDashboard(o: DashboardOptions): { server: http.Server; listen(): Promise<string>; warmed(): Promise<void>; close(): Promise<void> } {
  const md = createMarkdown();
  // audit with fix:false only reads; the store is needed for its state-file reader.
  const store = new ChannelStore({ root: o.root });
  const parses: ParseCache = new Map();
  let warmed: Promise<void> = Promise.resolve();

  const now = (): Date => (o.clock ?? (() => new Date()))();

  /** A card's facts, kept while the channel's files are unchanged and the day is the same (overdue and the 30 days move with it). */
  const cardFacts = new SignedCache<{ flags: string[]; data: ContextData | null; condensations: number; recall: WindowFigures | null }>();

  async function home(ctx: ViewCtx, q: HomeQuery): Promise<string> {
    const today = now().toISOString().slice(0, 10);
    const day = q.at.day;
    const cards: HomeCard[] = [];
    for (const u of await listConversations(o.root, o)) {
      const names = await unitLabel(o.root, u);
      const facts = await cardFacts.get(u.key, `${today}\n${await unitSignature(u)}`, async () => {
        const longest = (await readRecallFigures(u, now())).windows.at(-1);
        return {
          flags: await auditFlags(store, u, now()),
          data: await readContextData(u),
          condensations: (await readCondensations(u, parses)).length,
          recall: longest && longest.replies ? longest : null,
        };
      });
      cards.push({
        unit: u,
        label: names.label,
        guildLabel: names.guild,
        server: u.guildId ?? 'console',
        digest: facts.data ? channelDigest(facts.data, { today, ...(day ? { day } : {}) }) : null,
        condensations: facts.condensations,
        recall: facts.recall,
        flags: facts.flags,
      });
    }
    const packs = (await packageRows()).length;
    const more = packs ? `<p><a href="${ctx.href('/packages')}">Context packages (${packs})</a></p>` : '';
    return page(day ? `Channels as of ${day}` : 'Channels', homeBody(ctx, cards, q) + more);
  }

  /** Every server's packages, but never a private thread's (usable only in that thread). */
  async function packageRows(): Promise<PackageRow[]> {
    const rows: PackageRow[] = [];
    for (const server of await serversWithPackages(o.root)) {
      const id = server.kind === 'local' ? 'local' : server.guildId;
      const names: Names = server.kind === 'local' ? { channels: {} } : await readServerNames(o.root, server.guildId);
      const serverLabel = server.kind === 'local' ? 'console' : (names.guild ?? server.guildId);
      for (const pkg of await listPackages(store, server)) if (!pkg.privateThread && !pkg.problem) rows.push({ server: id, serverLabel, names, pkg });
    }
    return rows;
  }

  async function packagePage(ctx: ViewCtx, serverId: string, name: string): Promise<string | null> {
    const server = serverFromLabel(serverId);
    if (!server || !isPackageName(name)) return null;
    const row = (await packageRows()).find((r) => r.server === serverId && r.pkg.name === name);
    if (!row) return null;
    const e = await explainPackage(store, server, name);
    // A package made without a title has its name for one: said once.
    return page(e.pkg.title && e.pkg.title !== name ? `Package ${name}: ${e.pkg.title}` : `Package ${name}`, packageBody(ctx, e, row.names));
  }

  // Rendering 300 condensations to text on every search doubled its time: kept while a body is unchanged.
  const plainTexts = new Map<string, { body: string; text: string }>();
  function plainOf(u: Unit, c: Condensation): string {
    const key = `${u.key}/${c.id}`;
    const hit = plainTexts.get(key);
    if (hit && hit.body === c.body) return hit.text;
    const text = md.text(c.body);
    plainTexts.set(key, { body: c.body, text });
    return text;
  }

  async function search(ctx: ViewCtx, q: string, scope: string): Promise<string> {
    const units = (await listConversations(o.root, o)).filter((u) => !scope || u.key === scope);
    const hits: SearchHit[] = [];
    const words = q.toLowerCase().split(/\s+/).filter(Boolean);
    if (q) {
      for (const u of units) {
        // Lines without a vector yet are embedded first (once; the cache keeps them), so the first
        // search finds what the second does instead of scoring by words alone.
        await o.recall.indexAll({ channelDirs: u.recallDirs });
        // A person searching is never told "nothing" when memory has the words: the search's
        // matches, each marked when recall would also inject it.
        const [found, r] = await Promise.all([
          o.recall.search({ channelDirs: u.recallDirs, query: q, limit: 20 }),
          o.recall.recall({ channelDirs: u.recallDirs, query: q }),
        ]);
        const injected = new Set(r.items.map((i) => i.text));
        const text: SearchHit['text'] = [];
        for (const c of await readCondensations(u, parses)) {
          // The words a reader sees, not the markup (`**Date:**`, `##`): matched and shown alike.
          const plain = `${c.topic} ${plainOf(u, c)}`;
          const hay = plain.toLowerCase();
          if (!words.every((w) => hay.includes(w))) continue;
          text.push({ c, snippet: snippetAt(plain, hay.indexOf(words[0]!)) });
        }
        hits.push({ unit: u, label: (await unitLabel(o.root, u)).label, items: found, injected, text });
      }
    }
    return page(q ? `Search: ${q}` : 'Search', searchBody(ctx, q, scope, o.recall.semantic, hits));
  }

  async function route(url: URL, ctx: ViewCtx): Promise<string | null> {
    let segs: string[];
    try {
      segs = url.pathname
        .split('/')
        .filter(Boolean)
        .map((s) => decodeURIComponent(s));
    } catch {
      return null;
    }
    if (segs.length === 0) return home(ctx, { server: url.searchParams.get('server') ?? '', at: asOf(url) });
    if (segs[0] === 'search' && segs.length === 1) {
      return search(ctx, (url.searchParams.get('q') ?? '').trim().slice(0, 500), url.searchParams.get('in') ?? '');
    }
    if (segs[0] === 'packages' && segs.length === 1) return page('Context packages', packagesBody(ctx, await packageRows()));
    if (segs[0] === 'package' && segs.length === 3) return packagePage(ctx, segs[1]!, segs[2]!);
    if (segs[0] !== 'channel') return null;
    const rest = segs.slice(1);
    const ci = rest.indexOf('c');
    // `…/context` and `…/history`: the files on pages of their own (a key never ends in these words: its parts are ids).
    const file = ci < 0 && ['context', 'history'].includes(rest.at(-1) ?? '') ? rest.at(-1) : undefined;
    const keyParts = ci >= 0 ? rest.slice(0, ci) : file ? rest.slice(0, -1) : rest;
    const unit = (await listConversations(o.root, o)).find((u) => u.key === keyParts.join('/'));
    if (!unit) return null;
    const conds = await readCondensations(unit, parses);
    const { label, guild } = await unitLabel(o.root, unit);
    if (ci >= 0) {
      if (rest.length !== ci + 2) return null;
      const c: Condensation | undefined = conds.find((x) => x.id === rest[ci + 1]);
      return c ? page(c.topic, condensationBody(ctx, unit, c, conds)) : null;
    }
    const layout = folderLayout(unit.dir);
    // A private thread has no CONTEXT.md of its own: the parent's is not shown under it either.
    const context = unit.threadId ? null : await readText(layout.context);
    if (file === 'context') {
      if (unit.threadId) return null;
      return page(`${label}: CONTEXT.md`, contextBody(ctx, unit, conds, context, await readText(layout.contextArchive)));
    }
    const history = await readText(layout.history);
    if (file === 'history') return page(`${label}: HISTORY.md`, historyBody(ctx, unit, conds, history));
    const at = asOf(url);
    const day = at.day;
    const today = now().toISOString().slice(0, 10);
    const digest = channelDigest((await readContextData(unit)) ?? EMPTY_CONTEXT, { today, ...(day ? { day } : {}) });
    const health = day ? null : await readRecallHealth(o.root, unit, now());
    const body = channelBody(ctx, unit, {
      serverLabel: guild,
      conds,
      digest,
      memory: await readMemory(unit),
      filter: url.searchParams.get('filter') ?? '',
      at,
      hasContext: context !== null,
      hasHistory: history !== null,
      health: health ? recallHealthSection(health.health, health) : '',
    });
    return page(day ? `${label} as of ${day}` : label, body);
  }

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://dashboard.invalid');
      const headers: Record<string, string> = {
        'content-type': 'text/html; charset=utf-8',
        // No script at all: even a renderer bug cannot run planted code. Images only from the
        // dashboard itself: an image link pasted into memory must not make every reader's browser
        // call an outside server (it would learn who reads the memory, and when).
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      };
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, headers).end('method not allowed');
        return;
      }
      if (!o.token && !hostAllowed(req.headers.host, o.host)) {
        // Without a token, only the loopback names are answered: a web page that rebinds its own
        // domain name to 127.0.0.1 (DNS rebinding) must not be able to read the dashboard.
        res.writeHead(421, headers).end('421: use http://127.0.0.1 or http://localhost');
        return;
      }
      if (o.token) {
        if (!tokenOk(req, url, o.token)) {
          res.writeHead(401, headers).end('401: a token is required (MINUTES_DASHBOARD_TOKEN: header x-minutes-token, ?token= or cookie)');
          return;
        }
        // Never readable by a page's script, never sent by another site's request, and over TLS
        // never sent back over plain HTTP (where anyone on the path would read the token).
        const secure = cameOverTls(req, o.trustProxy) ? '; Secure' : '';
        headers['set-cookie'] = `minutes_token=${encodeURIComponent(o.token)}; HttpOnly; SameSite=Strict; Path=/${secure}`;
        if (url.searchParams.has('token')) {
          // The cookie carries it from now on: the token leaves the address bar (and the history,
          // and what a reader copies and pastes to someone else).
          url.searchParams.delete('token');
          const q = url.searchParams.toString();
          // One leading slash: `//host` in a Location would send the browser to another site.
          const to = `/${url.pathname.replace(/^\/+/, '')}${q ? `?${q}` : ''}`;
          res.writeHead(303, { ...headers, location: to }).end();
          return;
        }
      }
      const ctx: ViewCtx = { md, href: (p) => p };
      const html = await route(url, ctx);
      if (html === null) {
        res.writeHead(404, headers).end('404: not found');
        return;
      }
      res.writeHead(200, headers).end(html);
    })().catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`500: ${err.message}`);
    });
  });

  return {
    server,
    listen: async () => {
      const origin = await listenOn(server, o.port, o.host);
      // Fill the audit and parse caches once at start, so the first visitor does not pay for
      // auditing every channel (~250 ms at 300 condensations); a failure shows on the page later.
      warmed = home({ md, href: (p) => p }, { server: '', at: { text: '' } }).then(
        () => undefined,
        () => undefined,
      );
      // The sentence model loads and every line is embedded in the background from the start
      // (as the bot loads it at start), so the first search does not wait for all of it.
      o.recall.prepare();
      // A failure is the recall service's to log; searches then go by words.
      void listConversations(o.root, o)
        .then((units) => Promise.all(units.map((u) => o.recall.indexAll({ channelDirs: u.recallDirs }))))
        .catch(() => undefined);
      return `${origin}/`;
    },
    warmed: () => warmed,
    close: async () => {
      await warmed;
      await closeServer(server);
    },
  };
}

/** The `at` parameter: a day (YYYY-MM-DD, the end of it, UTC), or what is wrong with what was typed. */
function asOf(url: URL): HomeQuery['at'] {
  const text = (url.searchParams.get('at') ?? '').trim().slice(0, 40);
  if (!text) return { text };
  const p = parseDay(text);
  return 'day' in p ? { text, day: p.day } : { text, problem: p.problem };
}

/** About 200 characters of `text` around `at`, cut at spaces, with an ellipsis where it was cut. */
export function snippetAt(text: string, at: number): string {
  let from = Math.max(0, at - 60);
  let to = Math.min(text.length, at + 140);
  const space = text.indexOf(' ', from);
  if (from > 0 && space >= 0 && space < at) from = space + 1;
  if (to < text.length) to = Math.max(text.lastIndexOf(' ', to), at + 1);
  return `${from > 0 ? '…' : ''}${text.slice(from, to).trim()}${to < text.length ? '…' : ''}`;
}
