import fs from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { PROJECT_ROOT } from '../../config/load';
import { parseChannelKeys } from '../../mcp/catalog';
import { LineTransport } from '../../mcp/lineTransport';
import { createMinutesMcp } from '../../mcp/server';
import { createMcpHttp } from '../../mcp/http';
import { buildJudge } from '../../mcp/judge';
import { isLoopback } from '../../dashboard/server';
import { dataRootProblem } from '../../memory/dataRoot';
import { buildRecallService } from '../../recall/service';
import type { CliIO } from '../../shared/cliIO';
import type { Logger } from '../../log/logger';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { settingsFor } from './common';
import { dashboardCacheDir, MIN_TOKEN_CHARS } from './dashboard';
import { quietLoggerFor } from './quietLogger';

/**
 * `minutes mcp [--data-dir DIR] [--channels KEY,…] [--include-private] [--semantic off|local|api]
 * [--http HOST:PORT]`: a read-only Model Context Protocol server over stdio (or Streamable HTTP at
 * `http://HOST:PORT/mcp`, with MINUTES_MCP_TOKEN under the dashboard's rules: mcp/http.ts), for
 * coding agents. check_plan's judge is the configured model when the config or environment names a
 * provider (mcp/judge.ts), never required. Private threads are served
 * only with `--include-private` (naming one in `--channels` is not enough: the flag is the one
 * opt-in). stdout carries the protocol and nothing else: logs and the start line go to stderr. Like
 * the dashboard it needs no token or model key, never writes inside the data root (its vector cache
 * is moved out of it) and runs beside the bot. Bad arguments: one line on stderr, exit code 2. It
 * stops when the client closes stdin.
 */
export interface McpCliOptions {
  dataDir?: string;
  channels?: string;
  includePrivate?: boolean;
  semantic?: string;
  /** `--http HOST:PORT`: serve over Streamable HTTP instead of stdio. */
  http?: string;
}

/** `127.0.0.1:8788`, `localhost:0`, `[::1]:8788`: the address, or one line saying what is wrong. */
export function parseHttpAddress(text: string): { host: string; port: number } | { problem: string } {
  const m = /^(?:\[([0-9a-fA-F:]+)\]|([^:\s[\]]+)):(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65_535) return { problem: `--http takes HOST:PORT (e.g. 127.0.0.1:8788), not "${text}"` };
  return { host: (m[1] ?? m[2])!, port };
}

function packageVersion(): string {
  try {
    return String((JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version?: unknown }).version ?? '0.0.0');
  } catch {
    return '0.0.0';
  }
}

export async function runMcp(opts: McpCliOptions, io: CliIO, signal?: AbortSignal): Promise<number> {
  const fail = (msg: string): number => {
    io.stderr.write(`minutes mcp: ${msg}\n`);
    return 2;
  };
  let only: Set<string> | undefined;
  if (opts.channels !== undefined) {
    const parsed = parseChannelKeys(opts.channels);
    if ('problem' in parsed) return fail(parsed.problem);
    only = new Set(parsed.keys);
  }
  // --data-dir is MINUTES_DATA_DIR for this command: the settings (and the bot's default vector
  // cache, which must then be recognised as inside it) follow it.
  const env = opts.dataDir !== undefined ? { ...io.env, MINUTES_DATA_DIR: path.resolve(io.cwd, opts.dataDir) } : io.env;
  let address: { host: string; port: number } | undefined;
  const token = (io.env.MINUTES_MCP_TOKEN ?? '').trim() || undefined;
  if (opts.http !== undefined) {
    const parsed = parseHttpAddress(opts.http);
    if ('problem' in parsed) return fail(parsed.problem);
    address = parsed;
    // The dashboard's rules (a token guards memory over the network, where it can be tried as fast as requests go).
    if (token && token.length < MIN_TOKEN_CHARS)
      return fail(
        `MINUTES_MCP_TOKEN is ${token.length} characters, too short to resist guessing: use at least ${MIN_TOKEN_CHARS} random ones, e.g. from \`openssl rand -hex 32\``,
      );
    if (!isLoopback(address.host) && !token)
      return fail(`--http ${address.host} is reachable from other machines: set MINUTES_MCP_TOKEN to a secret first (it is then required on every request)`);
  }
  const settings = settingsFor({ ...io, env }, []);
  if (!settings) return 2;
  const logger = quietLoggerFor(io);
  if (!logger) return 2;
  const root = path.resolve(settings.dataDir);
  const rootProblem = dataRootProblem(root);
  if (rootProblem) return fail(opts.dataDir !== undefined ? rootProblem.replace('set MINUTES_DATA_DIR to', 'give --data-dir') : rootProblem);
  const mode = opts.semantic ?? settings.semantic.mode;
  if (mode !== 'off' && mode !== 'local' && mode !== 'api') return fail(`--semantic must be off, local or api, not "${mode}"`);

  const cacheDir = dashboardCacheDir(root, settings.semantic.cacheDir);
  const recall = buildRecallService({
    semantic: { ...settings.semantic, mode, cacheDir },
    logger,
    // An agent waits for a search, as a person does on the dashboard.
    queryTimeoutMs: 30_000,
    onMeaningUnavailable: (why) => io.stderr.write(`minutes mcp: meaning is unavailable (${why}); searching by words only\n`),
  });
  const judge = await buildJudge({ settings, logger, root });
  if (judge && 'problem' in judge) {
    await recall.close();
    return fail(`check_plan's model: ${judge.problem}`);
  }
  const includePrivate = opts.includePrivate === true;
  const serve = { root, only, includePrivate, recall, logger, version: packageVersion(), judge: judge?.deps };
  const { server, catalog } = createMinutesMcp(serve);
  const missing = await catalog.missing();
  if (missing.length) io.stderr.write(`minutes mcp: --channels names no channel of ${root} (yet): ${missing.join(', ')}\n`);
  const leftOut = await catalog.privateLeftOut();
  if (leftOut.length) io.stderr.write(`minutes mcp: ${leftOut.length} private thread(s) left out: add --include-private to serve them\n`);
  // Said only when there is one: the default (no model) keeps the start quiet.
  if (judge) io.stderr.write(`minutes mcp: check_plan judges with ${judge.describe}\n`);
  const visible = await catalog.list();
  const serving = (how: string) =>
    io.stderr.write(`minutes mcp: serving ${visible.length} channel(s) of ${root} ${how}, read-only (recall meaning: ${recall.semantic})\n`);
  const stopAll = async (): Promise<void> => {
    await recall.close();
    await judge?.close();
  };
  // The sentence model loads and the visible lines are embedded in the background from the start (as
  // the dashboard does), so the first search does not wait for all of it. A failure is the recall
  // service's to log; searches then go by words.
  const warm = (): void => {
    recall.prepare();
    void Promise.all(visible.map((c) => recall.indexAll({ channelDirs: c.searchDirs }))).catch(() => undefined);
  };
  if (address) {
    const serverFor = () => createMinutesMcp(serve).server;
    const code = await serveHttp({
      address,
      token,
      serverFor,
      logger,
      io,
      signal,
      started: (url) => {
        serving(`over HTTP at ${url}${token ? ' (token required)' : ''}`);
        warm();
      },
    });
    await server.close();
    await stopAll();
    return code;
  }

  const stdin = io.stdin as Readable;
  // Not the SDK's stdio transport: a malformed, invalid or over-long line is answered and the
  // server keeps serving (lineTransport.ts).
  const transport = new LineTransport({ input: stdin, output: io.stdout as Writable, onRefused: (why) => io.stderr.write(`minutes mcp: ${why}\n`) });
  let stop = (): void => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  transport.onclose = stop;
  stdin.once('end', stop);
  stdin.once('close', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  signal?.addEventListener('abort', stop, { once: true });
  serving('over stdio');
  await server.connect(transport);
  warm();

  await stopped;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  stdin.off('end', stop);
  stdin.off('close', stop);
  await server.close();
  await stopAll();
  return 0;
}

async function serveHttp(o: {
  address: { host: string; port: number };
  token?: string;
  serverFor: () => McpServer;
  logger: Logger;
  io: CliIO;
  signal?: AbortSignal;
  started: (url: string) => void;
}): Promise<number> {
  const web = createMcpHttp({ ...o.address, token: o.token, serverFor: o.serverFor, logger: o.logger });
  let url: string;
  try {
    url = await web.listen();
  } catch (err) {
    o.io.stderr.write(`minutes mcp: cannot listen on ${o.address.host}:${o.address.port}: ${(err as Error).message}\n`);
    return 2;
  }
  o.started(url);
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    o.signal?.addEventListener('abort', stop, { once: true });
  });
  await web.close();
  return 0;
}
