import fs from 'node:fs';
import path from 'node:path';
import type { CliIO } from '../../shared/cliIO';
import { quietLoggerFor } from './quietLogger';
import { buildRecallService, RecallService } from '../../recall/service';
import { semanticSettings, userVectorCacheDir } from '../../config/semantic';
import { ConfigError } from '../../config/errors';
import { loadSettings } from '../../config/load';

/**
 * What `minutes recall` and `minutes search` share: the folders they read, the meaning setting, and
 * a recall service that has embedded every line first (a command is not a reply: it waits).
 * Never writes inside the channel folder; a vector cache there is refused.
 */
export interface RecallSetupOptions {
  channelDir: string;
  workspace?: string;
  semantic?: string;
  vectorCache?: string;
}

/** What the composition may swap: another local sentence model (a damaged one, say). */
export interface RecallSetupDeps {
  localModel?: { module: string; id: string };
}

export interface OpenedRecall {
  recall: RecallService;
  channelDir: string;
  workspaceDir?: string;
}

/** The service with every line embedded, or the exit code after one line on stderr. */
export async function openRecall(command: string, opts: RecallSetupOptions, io: CliIO, deps: RecallSetupDeps = {}): Promise<OpenedRecall | number> {
  const fail = (msg: string): number => {
    io.stderr.write(`minutes ${command}: ${msg}\n`);
    return 2;
  };
  const channelDir = path.resolve(io.cwd, opts.channelDir);
  if (!isDir(channelDir)) return fail(`--channel-dir is not a readable folder: ${opts.channelDir}`);
  let workspaceDir: string | undefined;
  if (opts.workspace !== undefined) {
    workspaceDir = path.resolve(io.cwd, opts.workspace);
    if (!isDir(workspaceDir)) return fail(`--workspace is not a readable folder: ${opts.workspace}`);
  }
  const mode = opts.semantic ?? 'local';
  if (mode !== 'off' && mode !== 'local' && mode !== 'api') return fail(`--semantic must be off, local or api, not "${mode}"`);
  const logger = quietLoggerFor(io);
  if (!logger) return 2;
  let semantic;
  try {
    const base = mode === 'api' ? loadSettings({ env: io.env, cwd: io.cwd, needs: [] }) : undefined;
    semantic = semanticSettings({
      recall: base?.config.recall ?? { semantic: mode, api: {} },
      mode,
      env: io.env,
      cwd: io.cwd,
      openai: base?.openai ?? {},
      defaultCacheDir: userVectorCacheDir(io.env),
    });
    if (opts.vectorCache !== undefined) semantic = { ...semantic, cacheDir: path.resolve(io.cwd, opts.vectorCache) };
  } catch (err) {
    if (err instanceof ConfigError) return fail(err.message);
    throw err;
  }
  const cacheInside = path.relative(channelDir, semantic.cacheDir);
  if (mode !== 'off' && !cacheInside.startsWith('..') && !path.isAbsolute(cacheInside)) {
    return fail(`the vector cache ${semantic.cacheDir} is inside --channel-dir, which ${command} never writes to: pick another --vector-cache`);
  }
  // Not a reply: the command waits for every line's vector, then for each query's.
  const recall = buildRecallService({
    semantic,
    logger,
    queryTimeoutMs: 30_000,
    localModel: deps.localModel,
    // One line a person reads, not a logged stack: the result is still printed, by words.
    onMeaningUnavailable: (why) => io.stderr.write(`minutes ${command}: meaning is unavailable (${why}); recalling by words only\n`),
  });
  try {
    await recall.indexAll({ channelDirs: [channelDir], workspaceDir }, (lines) => {
      // Only a first run over a large folder takes long enough to need saying (~13 ms a line).
      if (lines >= 500)
        io.stderr.write(
          `minutes ${command}: embedding ${lines} lines not seen before (about ${Math.max(1, Math.round(lines / 70))} s; cached in ${semantic.cacheDir})\n`,
        );
    });
  } catch (err) {
    await recall.close();
    throw err;
  }
  return { recall, channelDir, workspaceDir };
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
