import os from 'node:os';
import { providerEnv, type Settings } from '../config/load';
import type { Logger } from '../log/logger';
import { createLimiter, isUnlimited, type ModelLimiter } from '../llm/limiter';
import { selectProvider } from '../llm/provider';
import type { ModelClient } from '../llm/types';
import { ChannelStore } from '../memory/store';
import { recallDirs } from '../memory/layout';
import type { ChannelRef } from '../memory/paths';
import type { RecallItem } from '../recall/types';
import { limiterConfig } from './runtime';
import { TurnWorkerHost, type TurnWorkerOptions } from './turnHost';
import { ownerOf, ownerOfDir, turnWorkerCount } from './turnRouting';
import type { TurnServices } from './turnServices';

/**
 * Starts the turn workers (turnWorker.ts, `turnWorkers` in the config, turnRouting.ts says what "auto" is) and returns the services the
 * Discord side uses, each a message to the worker that owns the conversation (turnRouting.ts): the
 * gateway's event loop keeps only ingest, the inbox and REST, and a burst across many channels is
 * answered by every worker at once. With more than one worker the model limiter is owned here and
 * the workers lease its slots (llm/limiterLease.ts), unless Redis already shares it. Resolves once
 * every worker's runtime is built; a start-up problem (a missing key) rejects with the same error
 * as in this thread.
 */
export async function startTurnWorkers(settings: Settings, logger: Logger, o: TurnWorkerOptions = {}): Promise<TurnServices> {
  const workers = turnWorkerCount(settings.config.turnWorkers, os.availableParallelism(), settings.semantic.mode);
  const limiter = workers > 1 ? await sharedLimiter(settings, logger) : undefined;
  const hosts = Array.from({ length: workers }, (_, index) => new TurnWorkerHost(settings, logger, o, { index, workers, limiter }));
  try {
    await Promise.all(hosts.map((h) => h.start()));
  } catch (err) {
    await Promise.allSettled(hosts.map((h) => h.close()));
    await limiter?.close();
    throw err;
  }
  if (workers > 1) logger.info({ workers }, 'turns run in %d worker threads, each owning its channels', workers);
  const of = (ref: ChannelRef) => hosts[ownerOf(ref, workers)]!;
  // Side calls and anything not a conversation's go to the first worker: its model client and recall.
  const first = hosts[0]!;
  const all = (f: (h: TurnWorkerHost) => void) => hosts.forEach(f);
  const clock = () => new Date();
  const store = new ChannelStore({
    root: settings.dataDir,
    clock,
    logger: logger.child({ component: 'store' }),
    // Memory the Secretary or a command wrote here is re-indexed by the recall of the worker that owns it.
    onWrite: (p) => {
      const dirs = recallDirs(p, settings.dataDir);
      const owner = ownerOfDir(settings.dataDir, p.convDir, workers);
      if (owner === undefined) all((h) => h.post({ type: 'warm', dirs }));
      else hosts[owner]!.post({ type: 'warm', dirs });
    },
  });
  const model: ModelClient = {
    provider: first.provider,
    models: first.models,
    complete: (req) => first.complete(req),
    // The workers' clients are closed with the workers.
    close: async () => undefined,
  };
  return {
    settings,
    logger,
    clock,
    store,
    model,
    usage: {
      async add(ref, modelName, _purpose, usage, at) {
        of(ref).post({ type: 'usage', ref, model: modelName, usage, at });
      },
    },
    recall: {
      semantic: settings.semantic.mode,
      search: (request) => {
        const owner = request.channelDirs[0] === undefined ? undefined : ownerOfDir(settings.dataDir, request.channelDirs[0], workers);
        return (hosts[owner ?? 0] ?? first).call({ type: 'search', request }) as Promise<RecallItem[]>;
      },
      idle: async () => {
        await Promise.all(hosts.map((h) => h.call({ type: 'recall-idle' })));
      },
    },
    engine: {
      respond: (ref, messages, opts = {}) =>
        of(ref).call({ type: 'respond', ref, messages }, { onModelRequest: opts.onModelRequest }) as Promise<{ text: string }>,
      forgetMessage: (ref, messageId) => of(ref).call({ type: 'forget', ref, messageId }) as Promise<boolean>,
    },
    commands: (ref, actor, command) => of(ref).call({ type: 'command', ref, actor, command }) as Promise<string>,
    // Written by the worker, which reports a failure in the log (nothing here waits for the disk).
    appendLog: async (ref, record) => of(ref).appendLog(ref, record),
    warmUp: (guildIds) => all((h) => h.post({ type: 'warm-up', guildIds })),
    probes: o.probes ?? {},
    abortModelCalls: (reason) => all((h) => h.post({ type: 'abort-all', reason })),
    async close() {
      await store.idle();
      await Promise.all(hosts.map((h) => h.close()));
      await limiter?.close();
    },
  };
}

/**
 * The limiter the workers lease from: none when calls are unlimited or Redis shares the limit
 * (each worker then joins the shared one itself, as separate processes do).
 */
async function sharedLimiter(settings: Settings, logger: Logger): Promise<ModelLimiter | undefined> {
  const config = limiterConfig(settings);
  if (isUnlimited(config) || config.redisUrl) return undefined;
  const { provider } = selectProvider({ env: providerEnv(settings), configured: settings.config.provider });
  return createLimiter({ provider, config, logger });
}
