import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Settings } from '../config/load';
import { lineWriter, type Logger } from '../log/logger';
import type { ModelClient, ModelRequest, ModelResponse } from '../llm/types';
import { ChannelStore } from '../memory/store';
import { recallDirs } from '../memory/layout';
import type { RecallItem } from '../recall/types';
import type { ChannelRef } from '../memory/paths';
import type { LogRecord } from '../chat/conversation';
import type { UpkeepTuning } from '../upkeep/schedule';
import type { Probes } from './probes';
import { fromWire, HostMessage, TurnWorkerData, WorkerMessage } from './turnProtocol';
import type { TurnServices } from './turnServices';

/** Omit over each member of a union (plain Omit would merge the members into one shape). */
type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** Host messages that are answered (`done` / `failed`), without their id. */
type Call = OmitEach<Extract<HostMessage, { id: number }>, 'id'>;

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  onModelRequest?: () => void;
  onText?: (delta: string) => void;
}

export interface TurnWorkerOptions {
  upkeep?: Partial<UpkeepTuning>;
  /** The trace probe is forwarded from the worker (the fault probe is the Secretary's, which runs here). */
  probes?: Probes;
}

/**
 * Starts the turn worker (turnWorker.ts) and returns the services the Discord side uses, each a
 * message to the worker: the gateway's event loop keeps only ingest, the inbox and REST. Resolves
 * once the worker's runtime is built; a start-up problem (a missing key) rejects with the same
 * error as in this thread.
 */
export async function startTurnWorker(settings: Settings, logger: Logger, o: TurnWorkerOptions = {}): Promise<TurnServices> {
  const host = new TurnWorkerHost(settings, logger, o);
  await host.start();
  const clock = () => new Date();
  const store = new ChannelStore({
    root: settings.dataDir,
    clock,
    logger: logger.child({ component: 'store' }),
    // Memory the Secretary or a command wrote here is re-indexed by the worker's recall.
    onWrite: (p) => host.post({ type: 'warm', dirs: recallDirs(p, settings.dataDir) }),
  });
  const model: ModelClient = {
    provider: host.provider,
    models: host.models,
    complete: (req) => host.complete(req),
    // The worker's client is closed with the worker.
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
        host.post({ type: 'usage', ref, model: modelName, usage, at });
      },
    },
    recall: {
      semantic: settings.semantic.mode,
      search: (request) => host.call({ type: 'search', request }) as Promise<RecallItem[]>,
      idle: () => host.call({ type: 'recall-idle' }) as Promise<void>,
    },
    engine: {
      respond: (ref, messages, opts = {}) =>
        host.call({ type: 'respond', ref, messages }, { onModelRequest: opts.onModelRequest }) as Promise<{ text: string }>,
      forgetMessage: (ref, messageId) => host.call({ type: 'forget', ref, messageId }) as Promise<boolean>,
    },
    commands: (ref, actor, command) => host.call({ type: 'command', ref, actor, command }) as Promise<string>,
    // Written by the worker, which reports a failure in the log (nothing here waits for the disk).
    appendLog: async (ref, record) => host.appendLog(ref, record),
    warmUp: (guildIds) => host.post({ type: 'warm-up', guildIds }),
    probes: o.probes ?? {},
    abortModelCalls: (reason) => host.post({ type: 'abort-all', reason }),
    async close() {
      await store.idle();
      await host.close();
    },
  };
}

/** A worker that dies sooner than this after starting is restarted after a growing pause (1 s, 2 s, … 60 s). */
const STABLE_AFTER_MS = 60_000;
const RESTART_MAX_DELAY_MS = 60_000;

class TurnWorkerHost {
  private worker: Worker | undefined;
  /** Set while a replacement for a worker that died is starting: calls wait for it. */
  private restarting: Promise<void> | undefined;
  private readonly pending = new Map<number, Pending>();
  /** log.jsonl lines not yet handed to the worker (see appendLog). */
  private logLines: { ref: ChannelRef; record: LogRecord }[] = [];
  private nextId = 1;
  private closing = false;
  private restartDelayMs = 0;
  private readonly writeLine: (line: string) => void;
  /** The worker's model client's provider and models (sent with `ready`). */
  provider: ModelClient['provider'] = 'anthropic';
  models: ModelClient['models'] = { chat: '', side: '' };

  constructor(
    private readonly settings: Settings,
    private readonly logger: Logger,
    private readonly o: TurnWorkerOptions,
  ) {
    this.writeLine = lineWriter(logger);
  }

  async start(): Promise<void> {
    const data: TurnWorkerData = {
      settings: { ...this.settings, discord: null },
      upkeep: this.o.upkeep,
      logLevel: this.logger.level,
      logBindings: this.logger.bindings(),
      trace: Boolean(this.o.probes?.trace),
    };
    const w = new Worker(workerFile(), { workerData: data });
    const startedAt = Date.now();
    await new Promise<void>((resolve, reject) => {
      w.once('error', reject);
      w.once('exit', (code) => reject(new Error(`the turn worker exited while starting (code ${code})`)));
      w.on('message', (m: WorkerMessage) => {
        if (m.type === 'ready') {
          this.provider = m.provider;
          this.models = m.models;
          resolve();
        } else if (m.type === 'start-failed') reject(fromWire(m.error));
        else this.onMessage(w, m);
      });
    }).catch(async (err) => {
      await w.terminate();
      throw err;
    });
    w.removeAllListeners('error').removeAllListeners('exit');
    w.on('error', (err) => this.stopped(w, err, startedAt));
    w.on('exit', (code) => this.stopped(w, new Error(`exited with code ${code}`), startedAt));
    // Kept alive only while something waits on it (see send).
    w.unref();
    this.worker = w;
  }

  post(m: Exclude<HostMessage, { id: number }>): void {
    this.postNow(m);
  }

  /**
   * log.jsonl lines go to the worker together, once per turn of this event loop: a burst's messages
   * would otherwise cost both threads a message each. Anything else posted flushes them first, so a
   * message's line still reaches the worker before the turn that answers it.
   */
  appendLog(ref: ChannelRef, record: LogRecord): void {
    if (this.logLines.length === 0) setImmediate(() => this.flushLogLines());
    this.logLines.push({ ref, record });
  }

  private flushLogLines(): void {
    if (this.logLines.length === 0) return;
    const lines = this.logLines;
    this.logLines = [];
    this.worker?.postMessage({ type: 'append-logs', lines } satisfies HostMessage);
  }

  private postNow(m: HostMessage): void {
    this.flushLogLines();
    this.worker?.postMessage(m);
  }

  call(m: Call, hooks: Pick<Pending, 'onModelRequest' | 'onText'> = {}): Promise<unknown> {
    return this.send(m, hooks).answer;
  }

  complete(req: ModelRequest): Promise<ModelResponse> {
    const { signal, onText, ...request } = req;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const { id, answer } = this.send({ type: 'model', request, stream: Boolean(onText) }, { onText });
    if (!signal) return answer as Promise<ModelResponse>;
    return new Promise<ModelResponse>((resolve, reject) => {
      const onAbort = () => {
        this.postNow({ type: 'abort', id });
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      (answer as Promise<ModelResponse>).then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.restarting?.catch(() => undefined);
    const w = this.worker;
    if (!w) return;
    try {
      await this.send({ type: 'close' }).answer;
    } finally {
      this.worker = undefined;
      await w.terminate();
    }
  }

  private send(m: Call, hooks: Pick<Pending, 'onModelRequest' | 'onText'> = {}): { id: number; answer: Promise<unknown> } {
    const id = this.nextId++;
    const answer = new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, ...hooks });
      const deliver = () => {
        const w = this.worker;
        if (!this.pending.has(id)) return;
        if (!w) return this.settle(id, new Error('the turn worker is not running (the log says why); restart Minutes'));
        // The worker keeps the process alive only while something waits on it.
        w.ref();
        this.postNow({ ...m, id } as HostMessage);
      };
      if (this.restarting) void this.restarting.then(deliver, deliver);
      else deliver();
    });
    return { id, answer };
  }

  private settle(id: number, err: Error | null, value?: unknown): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker?.unref();
    if (err) p.reject(err);
    else p.resolve(value);
  }

  private onMessage(w: Worker, m: WorkerMessage): void {
    if (w !== this.worker && m.type !== 'log') return;
    switch (m.type) {
      case 'log':
        return this.writeLine(m.line);
      case 'trace':
        for (const mark of m.marks) this.o.probes?.trace?.(mark.messageId, mark.stage, mark.at - performance.timeOrigin);
        return;
      case 'model-request':
        return this.pending.get(m.id)?.onModelRequest?.();
      case 'text':
        return this.pending.get(m.id)?.onText?.(m.delta);
      case 'done':
        return this.settle(m.id, null, m.value);
      case 'failed':
        return this.settle(m.id, fromWire(m.error));
    }
  }

  /**
   * The worker died (an uncaught error in a turn): what waited on it fails with one line, and a
   * new worker is started (after a pause that grows while it keeps dying), so the bot goes on
   * answering. Conversations are on disk; the new worker reads them back.
   */
  private stopped(w: Worker, err: Error, startedAt: number): void {
    if (w !== this.worker || this.closing) return;
    this.worker = undefined;
    for (const id of [...this.pending.keys()]) this.settle(id, new Error(`the turn worker stopped (${err.message}); this message was not answered`));
    this.restartDelayMs = Date.now() - startedAt > STABLE_AFTER_MS ? 0 : Math.min(RESTART_MAX_DELAY_MS, Math.max(1_000, this.restartDelayMs * 2));
    this.logger.error({ err, restartInMs: this.restartDelayMs }, 'the turn worker stopped; starting a new one');
    this.restarting = new Promise<void>((resolve) => setTimeout(resolve, this.restartDelayMs).unref())
      .then(() => (this.closing ? undefined : this.start()))
      .catch((e) => this.logger.error({ err: e }, 'the turn worker could not be restarted; replies stop until Minutes is restarted'))
      .finally(() => {
        this.restarting = undefined;
      });
  }
}

/** The compiled worker beside this file; under ts-jest (this file is .ts), the build in dist/. */
function workerFile(): string {
  const here = path.join(__dirname, 'turnWorker.js');
  if (fs.existsSync(here)) return here;
  return path.resolve(__dirname, '..', '..', 'dist', 'app', 'turnWorker.js');
}
