import { providerEnv, type Settings } from '../config/load';
import type { Logger } from '../log/logger';
import { createModelClient } from '../llm/provider';
import type { ModelClient } from '../llm/types';
import { stoppable } from '../llm/shutdown';
import { buildRecallService, RecallService } from '../recall/service';
import { recallDirs } from '../memory/paths';
import { ChannelStore } from '../memory/store';
import { ChatEngine, ChatHooks } from '../chat/engine';
import { UsageBook } from '../chat/usage';
import { DEFAULT_UPKEEP, UpkeepTuning } from '../upkeep/schedule';
import { Upkeep } from '../upkeep/upkeep';

/** Everything a transport (console or Discord) needs, built once from validated settings. */
export interface Runtime {
  settings: Settings;
  logger: Logger;
  clock: () => Date;
  store: ChannelStore;
  model: ModelClient;
  recall: RecallService;
  engine: ChatEngine;
  upkeep: Upkeep;
  usage: UsageBook;
  /** Finishes queued turns and writes, then stops the model limiter. */
  close(): Promise<void>;
  /** Shutdown budget spent: aborts the model requests in flight and refuses any later one. */
  abortModelCalls(reason: string): void;
}

export interface RuntimeOptions {
  clock?: () => Date;
  /** Tests and benches inject their own client (e.g. with instant retries). */
  model?: ModelClient;
  hooks?: ChatHooks;
  upkeep?: Partial<UpkeepTuning>;
  /** Start the node-cron upkeep tick (the bot does; console mode runs due upkeep at end of input). */
  scheduleUpkeep?: boolean;
}

export async function createRuntime(settings: Settings, logger: Logger, opts: RuntimeOptions = {}): Promise<Runtime> {
  const clock = opts.clock ?? (() => new Date());
  // A memory file written is re-indexed in the background, so its new lines have vectors before
  // the next message asks (a reply never waits for this).
  let recall: RecallService | undefined;
  const store = new ChannelStore({
    root: settings.dataDir,
    clock,
    logger: logger.child({ component: 'store' }),
    onWrite: (p) => recall?.warm(recallDirs(p, settings.dataDir)),
  });
  const { config } = settings;
  const model = stoppable(
    opts.model ??
      (await createModelClient({
        logger,
        env: providerEnv(settings),
        provider: config.provider,
        models: config.models,
        limits: {
          requestsPerMinute: config.limits.requestsPerMinute === 0 ? 'unlimited' : config.limits.requestsPerMinute,
          maxConcurrent: config.limits.concurrency === 0 ? 'unlimited' : config.limits.concurrency,
          redisUrl: settings.redisUrl,
        },
        retry: { maxAttempts: config.limits.maxRetries + 1 },
        timeoutMs: config.limits.timeoutMs,
      })),
  );
  const usage = new UsageBook(store);
  recall = buildRecallService({
    semantic: settings.semantic,
    logger: logger.child({ component: 'recall' }),
    queryTimeoutMs: settings.semantic.queryTimeoutMs,
  });
  let upkeep: Upkeep | undefined;
  const hooks: ChatHooks = opts.hooks ?? {
    afterTurn: (ref) => upkeep?.noteTurn(ref),
    compactNow: async (ref) => {
      await upkeep?.compactNow(ref);
    },
  };
  const engine = new ChatEngine({
    store,
    model,
    recall,
    logger,
    clock,
    hooks,
    usage,
    settings: {
      contextMaxChars: config.context.maxChars,
      maxMessageChars: config.conversation.maxMessageChars,
      recallBudgetChars: config.recall.budgetChars,
      recallMaxItems: config.recall.maxItems,
    },
  });
  upkeep = new Upkeep({
    deps: { model, store, logger: logger.child({ component: 'upkeep' }), clock, usage, recall },
    engine,
    tuning: { ...DEFAULT_UPKEEP, tokenBudget: config.conversation.tokenBudget, ...opts.upkeep },
    keepRecentTurns: config.conversation.keepRecentTurns,
  });
  if (opts.scheduleUpkeep) upkeep.start();
  const up = upkeep;
  return {
    settings,
    logger,
    clock,
    store,
    model,
    recall,
    engine,
    upkeep: up,
    usage,
    abortModelCalls: (reason) => model.abortAll(reason),
    async close() {
      await engine.idle();
      await up.stop();
      await engine.idle();
      await store.idle();
      await model.close();
      await recall.close();
    },
  };
}
