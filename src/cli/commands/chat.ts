import os from 'node:os';
import { createRuntime } from '../../app/runtime';
import { probeWritableReadOnly, type Settings } from '../../config/load';
import { ProviderConfigError } from '../../llm/provider';
import { assertValidRef, ChannelRef, InvalidChannelError } from '../../memory/paths';
import { channelPaths } from '../../memory/layout';
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
  const interactive = Boolean(io.stdin.isTTY);
  // At a terminal the logs would run over the banner and the `>` prompt: warnings and errors only,
  // unless LOG_LEVEL or the config's `log.level` asks for more.
  const logger = loggerFor(interactive && !settings.log.level ? { ...settings, log: { ...settings.log, level: 'warn' } } : settings, io);
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
    io.stderr.write(`Minutes console: channel local/${opts.channel} in ${settings.dataDir}. /help lists the commands; Ctrl-D quits.\n`);
  }
  const rt = runtime;
  const end = endOfInput(io, rt.logger);
  // One budget from the moment input ends, however it ends, for everything left: the line being
  // answered (its retries included), the queued upkeep and the writes. A hung model can never hold
  // the process longer than that.
  let budgetSpent = false;
  const budget = end.ended.then(
    () =>
      new Promise<'timeout'>((r) =>
        setTimeout(() => {
          budgetSpent = true;
          // Abort first: a hung request would otherwise hold the process open for its full
          // timeout, and upkeep would go on to send its next request after this line.
          rt.abortModelCalls('the shutdown budget ran out');
          r('timeout');
        }, opts.shutdownBudgetMs ?? SHUTDOWN_BUDGET_MS).unref(),
      ),
  );
  try {
    await runConsole({ runtime: rt, ref, input: io.stdin, output: io.stdout, interactive, userName: os.userInfo().username || 'you', stop: end.stop });
    end.inputDone();
    // End of input: finish queued work, run the upkeep that is due once, then stop.
    const done = rt.engine
      .idle()
      .then(() => rt.upkeep.tick({ forceIdle: true }))
      .then(() => rt.close());
    if (budgetSpent || (await Promise.race([done.then(() => 'ok' as const), budget])) === 'timeout') {
      logger.warn('queued work did not finish within the shutdown budget; exiting anyway');
      return 1;
    }
    return 0;
  } finally {
    end.dispose();
  }
}

/**
 * When input ends: end of file (a pipe closed, Ctrl-D at a terminal) or SIGINT/SIGTERM, which also
 * stops reading. A second signal exits at once, for a person who does not want to wait.
 */
function endOfInput(io: CliIO, logger: { warn(msg: string): void }) {
  let markEnded!: () => void;
  const ended = new Promise<void>((r) => (markEnded = r));
  const ctrl = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (ctrl.signal.aborted) {
      logger.warn(`${signal} again: exiting without finishing queued work`);
      process.exit(130);
    }
    ctrl.abort();
    markEnded();
    // Nothing more is read: a terminal's or an open pipe's stdin must not keep the process alive.
    io.stdin.pause();
  };
  const onEnd = () => markEnded();
  io.stdin.once('end', onEnd);
  io.stdin.once('close', onEnd);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    ended,
    stop: ctrl.signal,
    /** The console has read everything (also when a stream never says 'end'). */
    inputDone: markEnded,
    dispose() {
      io.stdin.removeListener('end', onEnd);
      io.stdin.removeListener('close', onEnd);
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    },
  };
}
