import { providerEnv, type Settings } from '../config/load';
import type { Logger } from '../log/logger';
import { createModelClient } from '../llm/provider';
import type { ModelClient } from '../llm/types';
import { stoppable } from '../llm/shutdown';
import { buildRecallService, RecallService } from '../recall/service';
import { recallDirs } from '../memory/layout';
import { ChannelStore } from '../memory/store';
import { ChatEngine } from '../chat/engine';
import { ConversationStore } from '../chat/conversationStore';
import { UsageBook } from '../chat/usage';
import { DEFAULT_UPKEEP, UpkeepTuning } from '../upkeep/schedule';
import { Upkeep } from '../upkeep/upkeep';
import type { Probes } from './probes';
import { ActivePackages } from '../packages/active';

/** Everything a transport (console or Discord) needs, built once from validated settings. */
export interface Runtime {
  settings: Settings;
  logger: Logger;
  clock: () => Date;
  store: ChannelStore;
  model: ModelClient;
  recall: RecallService;
  engine: ChatEngine;
  /** The stored conversations the engine and upkeep share. */
  conversations: ConversationStore;
  upkeep: Upkeep;
  usage: UsageBook;
  /** What the benchmark or test that built this runtime instruments (nothing in production). */
  probes: Probes;
  /** Finishes queued turns and writes, then stops the model limiter. */
  close(): Promise<void>;
  /** Shutdown budget spent: aborts the model requests in flight and refuses any later one. */
  abortModelCalls(reason: string): void;
}

export interface RuntimeOptions {
  clock?: () => Date;
  /** Tests and benches inject their own client (e.g. with instant retries). */
  model?: ModelClient;
  upkeep?: Partial<UpkeepTuning>;
  /** Benchmarks' timing marks and tests' fault points, wired from here to the parts that report them. */
  probes?: Probes;
  /** Start the node-cron upkeep tick (the bot does; console mode runs due upkeep at end of input). */
  scheduleUpkeep?: boolean;
  /** Settles when no turn waits to start (the turn worker's pacer): background first contact waits for it. */
  lull?: () => Promise<void>;
}

export async function createRuntime(settings: Settings, logger: Logger, opts: RuntimeOptions = {}): Promise<Runtime> {
  const clock = opts.clock ?? (() => new Date());
  const probes = opts.probes ?? {};
  // A memory file written is re-indexed in the background, so its new lines have vectors before
  // the next message asks (a reply never waits for this).
  let recall: RecallService | undefined;
  const store = new ChannelStore({
    root: settings.dataDir,
    clock,
    logger: logger.child({ component: 'store' }),
    onWrite: (p) => recall?.warm(recallDirs(p, settings.dataDir)),
    lull: opts.lull,
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
  const conversations = new ConversationStore({ store, logger });
  const upkeep = new Upkeep({
    deps: { model, store, logger: logger.child({ component: 'upkeep' }), clock, usage, recall },
    conversations,
    tuning: { ...DEFAULT_UPKEEP, tokenBudget: config.conversation.tokenBudget, ...opts.upkeep },
    keepRecentTurns: config.conversation.keepRecentTurns,
  });
  const engine = new ChatEngine({
    store,
    conversations,
    model,
    recall,
    logger,
    clock,
    listeners: [upkeep],
    trace: probes.trace ? (messages, stage) => messages.forEach((m) => probes.trace!(m.id, stage, performance.now())) : undefined,
    usage,
    packages: new ActivePackages({ store, logger: logger.child({ component: 'packages' }) }),
    settings: {
      contextMaxChars: config.context.maxChars,
      maxMessageChars: config.conversation.maxMessageChars,
      recallBudgetChars: config.recall.budgetChars,
      recallMaxItems: config.recall.maxItems,
    },
  });
  if (opts.scheduleUpkeep) upkeep.start();
  return {
    settings,
    logger,
    clock,
    store,
    model,
    recall,
    engine,
    conversations,
    upkeep,
    usage,
    probes,
    abortModelCalls: (reason) => model.abortAll(reason),
    async close() {
      await engine.idle();
      await upkeep.stop();
      await engine.idle();
      // Written behind the replies while running: the last totals and turns land now.
      await usage.flush();
      await conversations.close();
      await store.idle();
      await model.close();
      await recall.close();
    },
  };
}
