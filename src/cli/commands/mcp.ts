import fs from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { PROJECT_ROOT } from '../../config/load';
import { parseChannelKeys } from '../../mcp/catalog';
import { LineTransport } from '../../mcp/lineTransport';
import { createMinutesMcp } from '../../mcp/server';
import { dataRootProblem } from '../../memory/dataRoot';
import { buildRecallService } from '../../recall/service';
import type { CliIO } from '../../shared/cliIO';
import { settingsFor } from './common';
import { dashboardCacheDir } from './dashboard';
import { quietLoggerFor } from './quietLogger';

/**
 * `minutes mcp [--data-dir DIR] [--channels KEY,…] [--include-private] [--semantic off|local|api]`: a
 * read-only Model Context Protocol server over stdio, for coding agents. Private threads are served
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
  const includePrivate = opts.includePrivate === true;
  const { server, catalog } = createMinutesMcp({ root, only, includePrivate, recall, logger, version: packageVersion() });
  const missing = await catalog.missing();
  if (missing.length) io.stderr.write(`minutes mcp: --channels names no channel of ${root} (yet): ${missing.join(', ')}\n`);
  const leftOut = await catalog.privateLeftOut();
  if (leftOut.length) io.stderr.write(`minutes mcp: ${leftOut.length} private thread(s) left out: add --include-private to serve them\n`);

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
  const visible = await catalog.list();
  io.stderr.write(`minutes mcp: serving ${visible.length} channel(s) of ${root} over stdio, read-only (recall meaning: ${recall.semantic})\n`);
  await server.connect(transport);
  // The sentence model loads and the visible lines are embedded in the background from the start (as
  // the dashboard does), so the first search does not wait for all of it. A failure is the recall
  // service's to log; searches then go by words.
  recall.prepare();
  void Promise.all(visible.map((c) => recall.indexAll({ channelDirs: c.searchDirs }))).catch(() => undefined);

  await stopped;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  stdin.off('end', stop);
  stdin.off('close', stop);
  await server.close();
  await recall.close();
  return 0;
}
