import type { Settings } from '../config/load';
import type { Logger } from '../log/logger';
import type { ModelClient } from '../llm/types';
import type { UsageRecorder } from '../llm/sideTask';
import type { RecallService } from '../recall/service';
import type { ChannelStore } from '../memory/store';
import type { ChatEngine } from '../chat/engine';
import type { LogRecord } from '../chat/conversation';
import type { ChannelRef } from '../memory/paths';
import { ChannelCommandRunner, runChannelCommand } from '../chat/commands';
import type { Probes } from './probes';
import type { Runtime } from './runtime';
import { warmUp } from './warmUp';

/**
 * What the Discord side (the gateway's thread) needs of the chat runtime, wherever the turns run:
 * in this thread (`inProcess`) or in the turn worker (`startTurnWorker`, turnHost.ts), which then
 * owns the engine, the stored conversations, upkeep, recall, usage and the model client.
 */
export interface TurnServices {
  settings: Settings;
  logger: Logger;
  clock: () => Date;
  /** This thread's store: the Secretary, thread opener and commands write through it. */
  store: ChannelStore;
  /** The one model client (its limiter has one owner): side tasks here call it too. */
  model: ModelClient;
  /** Where side tasks' tokens are counted (usage.json has one writer). */
  usage: UsageRecorder;
  recall: Pick<RecallService, 'semantic' | 'search' | 'idle'>;
  /**
   * Once logged in: loads the sentence model and indexes the served servers' most recent
   * conversations, in the background (warmUp.ts), so the first messages after a start pay for neither.
   */
  warmUp(guildIds: string[]): void;
  engine: Pick<ChatEngine, 'forgetMessage'> & {
    respond(...args: Parameters<ChatEngine['respond']>): Promise<{ text: string }>;
  };
  commands: ChannelCommandRunner;
  /** Appends to a conversation's cold log where its turns run (a message's line before its reply's). */
  appendLog(ref: ChannelRef, record: LogRecord): Promise<void>;
  probes: Probes;
  /** Shutdown budget spent: aborts the model requests in flight and refuses any later one. */
  abortModelCalls(reason: string): void;
  /** Finishes queued turns and writes, then stops the model limiter (and the worker). */
  close(): Promise<void>;
}

/** The runtime of this thread, as the Discord side sees it (tests and benches that hand in a model or a clock). */
export function inProcess(runtime: Runtime): TurnServices {
  const { store, engine, clock, usage } = runtime;
  return {
    settings: runtime.settings,
    logger: runtime.logger,
    clock,
    store,
    model: runtime.model,
    usage,
    recall: runtime.recall,
    engine,
    commands: channelCommands(runtime),
    appendLog: (ref, record) => store.appendJsonl(store.paths(ref).log, record),
    warmUp: (guildIds) => warmUp(runtime, guildIds),
    probes: runtime.probes,
    abortModelCalls: (reason) => runtime.abortModelCalls(reason),
    close: () => runtime.close(),
  };
}

/** The channel commands against a runtime's engine, store, usage and upkeep (this thread's or the worker's). */
export function channelCommands(runtime: Pick<Runtime, 'store' | 'engine' | 'clock' | 'usage' | 'upkeep'>): ChannelCommandRunner {
  const { store, engine, clock, usage, upkeep } = runtime;
  return (ref, actor, command) => runChannelCommand({ store, engine, clock, usage, upkeep }, ref, actor, command);
}
