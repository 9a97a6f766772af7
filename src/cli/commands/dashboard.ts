import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createDashboard, isLoopback } from '../../dashboard/server';
import { dataRootProblem } from '../../memory/dataRoot';
import { buildRecallService } from '../../recall/service';
import type { CliIO } from '../../shared/cliIO';
import { settingsFor } from './common';
import { quietLoggerFor } from './quietLogger';

/**
 * `minutes dashboard [--port N] [--host H] [--include-private]`: the read-only web page over the data
 * root. Needs no Discord token or model key; runs beside the bot. Private threads are shown only
 * with `--include-private`.
 */
export interface DashboardCliOptions {
  port?: number;
  host?: string;
  semantic?: string;
  includePrivate?: boolean;
  /** `--trust-proxy ADDR[,ADDR]`: reverse proxies whose X-Forwarded-Proto is believed. */
  trustProxy?: string;
}

export const DEFAULT_PORT = 8787;
/**
 * The token guards memory over the network, where it can be tried as fast as requests go: 24
 * random characters (hex: 96 bits) are far beyond guessing; `abc` or a word is not.
 */
export const MIN_TOKEN_CHARS = 24;

/** The bot's cache (inside the data root) is moved to the temp folder; a cache elsewhere is kept. */
export function dashboardCacheDir(root: string, cacheDir: string): string {
  const rel = path.relative(root, cacheDir);
  return !rel.startsWith('..') && !path.isAbsolute(rel) ? path.join(os.tmpdir(), 'minutes-dashboard-vectors') : cacheDir;
}

export async function runDashboard(opts: DashboardCliOptions, io: CliIO, signal?: AbortSignal): Promise<number> {
  const host = opts.host ?? '127.0.0.1';
  const trustProxy = (opts.trustProxy ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  // An address, not a name: a name would be looked up again and again, and could be made to point anywhere.
  const notIp = trustProxy.find((a) => net.isIP(a) === 0);
  if (notIp !== undefined) {
    io.stderr.write(`minutes dashboard: --trust-proxy takes the IP address of your reverse proxy (e.g. 127.0.0.1), not "${notIp}"\n`);
    return 2;
  }
  const token = (io.env.MINUTES_DASHBOARD_TOKEN ?? '').trim() || undefined;
  if (token && token.length < MIN_TOKEN_CHARS) {
    io.stderr.write(
      `minutes dashboard: MINUTES_DASHBOARD_TOKEN is ${token.length} characters, too short to resist guessing: use at least ${MIN_TOKEN_CHARS} random ones, e.g. from \`openssl rand -hex 32\` or \`node -e "console.log(require('crypto').randomBytes(32).toString('hex'))"\`\n`,
    );
    return 2;
  }
  if (!isLoopback(host) && !token) {
    io.stderr.write(
      `minutes dashboard: --host ${host} is reachable from other machines: set MINUTES_DASHBOARD_TOKEN to a secret first (it is then required on every request)\n`,
    );
    return 2;
  }
  const settings = settingsFor(io, []);
  if (!settings) return 2;
  const logger = quietLoggerFor(io);
  if (!logger) return 2;
  const root = path.resolve(settings.dataDir);
  const rootProblem = dataRootProblem(root);
  if (rootProblem) {
    io.stderr.write(`minutes dashboard: ${rootProblem}\n`);
    return 2;
  }
  const mode = opts.semantic ?? settings.semantic.mode;
  if (mode !== 'off' && mode !== 'local' && mode !== 'api') {
    io.stderr.write(`minutes dashboard: --semantic must be off, local or api, not "${mode}"\n`);
    return 2;
  }
  // Same recall as the bot, but its vector cache never goes inside the data root: browsing must
  // leave the data root byte for byte unchanged. MINUTES_VECTOR_CACHE wins when it is outside.
  const cacheDir = dashboardCacheDir(root, settings.semantic.cacheDir);
  // A person waits for a search, not a reply: its words' vector is waited for while the model loads
  // (the bot's 150 ms would drop the first searches to words alone).
  const recall = buildRecallService({ semantic: { ...settings.semantic, mode, cacheDir }, logger, queryTimeoutMs: 30_000 });
  const dash = createDashboard({ root, host, port: opts.port ?? DEFAULT_PORT, token, recall, includePrivate: opts.includePrivate === true, trustProxy });
  let url: string;
  try {
    url = await dash.listen();
  } catch (err) {
    await recall.close();
    io.stderr.write(`minutes dashboard: cannot listen on ${host}:${opts.port ?? DEFAULT_PORT}: ${(err as Error).message}\n`);
    return 2;
  }
  io.stdout.write(`minutes dashboard: ${url} (read-only view of ${root}${token ? '; token required' : ''})\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop, { once: true });
  });
  await dash.close();
  await recall.close();
  return 0;
}
