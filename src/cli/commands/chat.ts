import os from 'node:os';
import { createRuntime } from '../../app/runtime';
import { probeWritableReadOnly, type Settings } from '../../config/load';
import { ProviderConfigError } from '../../llm/provider';
import { assertValidRef, ChannelRef, channelPaths, InvalidChannelError } from '../../memory/paths';
import { runConsole } from '../console';
import { acquireSessionLock } from '../sessionLock';
import type { CliIO } from '../../shared/cliIO';
import { loggerFor, settingsFor } from './common';

/** How long end-of-input may take to finish queued work before the process gives up. */
const SHUTDOWN_BUDGET_MS = 9_000;

export interface ChatCliOptions {
  channel: string;
  /** How long end-of-input may take; SHUTDOWN_BUDGET_MS by default (tests shorten it). */
  shutdownBudgetMs?: number;
}

export async function runChat(opts: ChatCliOptions, io: CliIO): Promise<number> {
  const ref: ChannelRef = { kind: 'local', name: opts.channel };
  try {
    assertValidRef(ref);
  } catch (err) {
    if (err instanceof InvalidChannelError) {
      io.stderr.write(`minutes: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const settings = settingsFor(io, ['provider']);
  if (!settings) return 2;
  // Checked before the first answer: a reply that is then never saved is silent data loss.
  const { problem } = probeWritableReadOnly(settings.dataDir);
  if (problem) {
    io.stderr.write(`minutes: the data root ${settings.dataDir} is not usable (${problem}): set MINUTES_DATA_DIR to a folder this user can write\n`);
    return 2;
  }
  const lock = acquireSessionLock(channelPaths(settings.dataDir, ref).stateDir);
  if ('busy' in lock) {
    io.stderr.write(
      `minutes: local/${opts.channel} is open in another console session (pid ${lock.busy.pid} on ${lock.busy.host}); ` +
        "close that one first (two sessions would overwrite each other's turns), or use another --channel\n",
    );
    return 2;
  }
  try {
    return await chatSession(opts, io, settings, ref);
  } finally {
    lock.release();
  }
}

async function chatSession(opts: ChatCliOptions, io: CliIO, settings: Settings, ref: ChannelRef): Promise<number> {
  const logger = loggerFor(settings, io);
  const interactive = Boolean(io.stdin.isTTY);
  let runtime;
  try {
    // At a terminal upkeep runs on its schedule as in the bot; a script's session gets one
    // deterministic pass at end of input instead.
    runtime = await createRuntime(settings, logger, { scheduleUpkeep: interactive });
  } catch (err) {
    if (err instanceof ProviderConfigError || (err instanceof Error && /REDIS_URL/.test(err.message))) {
      io.stderr.write(`minutes: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (interactive) {
    io.stderr.write(
      `Minutes console: channel local/${opts.channel} in ${settings.dataDir}. Commands: /recall, /memory, /context, /new, /status. Ctrl-D quits.\n`,
    );
  }
  await runConsole({ runtime, ref, input: io.stdin, output: io.stdout, interactive, userName: os.userInfo().username || 'you' });
  // End of input: finish queued work, run the upkeep that is due once, then stop.
  const done = runtime.engine
    .idle()
    .then(() => runtime.upkeep.tick({ forceIdle: true }))
    .then(() => runtime.close());
  const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), opts.shutdownBudgetMs ?? SHUTDOWN_BUDGET_MS).unref());
  if ((await Promise.race([done.then(() => 'ok' as const), timer])) === 'timeout') {
    // Abort first: a hung request would otherwise hold the process open for its full timeout,
    // and upkeep would go on to send its next request after this line.
    runtime.abortModelCalls('the shutdown budget ran out');
    logger.warn('queued work did not finish within the shutdown budget; exiting anyway');
    return 1;
  }
  return 0;
}
