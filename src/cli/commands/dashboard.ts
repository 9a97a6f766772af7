import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDashboard, isLoopback } from '../../dashboard/server';
import { buildRecallService } from '../../recall/service';
import type { CliIO } from '../../shared/cliIO';
import { settingsFor } from './common';
import { quietLoggerFor } from './quietLogger';

/**
 * `minutes dashboard [--port N] [--host H]`: the read-only web page over the data root. Needs no
 * Discord token or model key; runs beside the bot.
 */
export interface DashboardCliOptions {
  port?: number;
  host?: string;
  semantic?: string;
}

export const DEFAULT_PORT = 8787;

/** The bot's cache (inside the data root) is moved to the temp folder; a cache elsewhere is kept. */
export function dashboardCacheDir(root: string, cacheDir: string): string {
  const rel = path.relative(root, cacheDir);
  return !rel.startsWith('..') && !path.isAbsolute(rel) ? path.join(os.tmpdir(), 'minutes-dashboard-vectors') : cacheDir;
}

export async function runDashboard(opts: DashboardCliOptions, io: CliIO, signal?: AbortSignal): Promise<number> {
  const host = opts.host ?? '127.0.0.1';
  const token = (io.env.MINUTES_DASHBOARD_TOKEN ?? '').trim() || undefined;
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
  if (!fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
    io.stderr.write(`minutes dashboard: the data root ${root} does not exist: set MINUTES_DATA_DIR to your channels folder\n`);
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
  const recall = buildRecallService({ semantic: { ...settings.semantic, mode, cacheDir }, logger });
  const dash = createDashboard({ root, host, port: opts.port ?? DEFAULT_PORT, token, recall });
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
