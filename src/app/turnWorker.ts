import { Writable } from 'node:stream';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { createLogger } from '../log/logger';
import type { ChannelCommandRunner } from '../chat/commands';
import { FewPerLoopTurn } from '../shared/queue';
import { channelCommands } from './turnServices';
import { createRuntime, type Runtime } from './runtime';
import type { Probes } from './probes';
import { warmUp } from './warmUp';
import { HostMessage, toWire, TurnWorkerData, WorkerMessage } from './turnProtocol';

/**
 * The turn worker: a thread that owns the chat runtime (engine, stored conversations, upkeep,
 * recall, usage, the model client) so the gateway's thread does only ingest, the per-channel
 * inbox and REST. Started by turnHost.ts; every message it takes is in turnProtocol.ts.
 */

/**
 * Turns, deletes and commands start at most this many per turn of the worker's event loop, in
 * arrival order: a burst's turns would otherwise run their recall and prompt back to back while the
 * model's answers to earlier turns wait unread. Under `bench:load` (100 channels × 20, words only,
 * 6 paired runs each, 2026-11-28, once a turn cost the worker less): a channel's first request left
 * 518 ms (p50) after its message arrived with 10 a loop turn, 339 with 20, 247 with 40, 274
 * unpaced; dispatch → model p50 was 1,124, 995–1,021, 1,158 and 1,321 ms (docs/benchmarks.md).
 */
const TURNS_PER_LOOP_TURN = 20;

if (!parentPort) throw new Error('turnWorker runs as a worker thread (started by src/app/turnHost.ts)');
serve(parentPort, workerData as TurnWorkerData).catch((err) => {
  // Nothing is served when this fails: the host reports it and stops.
  parentPort!.postMessage({ type: 'start-failed', error: toWire(err) } satisfies WorkerMessage);
});

async function serve(port: MessagePort, data: TurnWorkerData): Promise<void> {
  const post = (m: WorkerMessage) => port.postMessage(m);
  // Lines are formatted and redacted here, written by the host's logger (one stream, one format).
  const lines = new Writable({
    write(chunk, _enc, done) {
      post({ type: 'log', line: String(chunk) });
      done();
    },
  });
  const logger = createLogger({ level: data.logLevel, format: 'json', destination: lines }).child(data.logBindings);
  const probes: Probes = data.trace ? { trace: traceForwarder(post) } : {};
  const turns = new FewPerLoopTurn(TURNS_PER_LOOP_TURN);
  const runtime = await createRuntime(data.settings, logger, { scheduleUpkeep: true, upkeep: data.upkeep, probes, lull: () => turns.drained() });
  const ctx: WorkerContext = { rt: runtime, post, calls: new Map(), turns, commands: channelCommands(runtime) };
  port.on('message', (m: HostMessage) => handle(ctx, m));
  post({ type: 'ready', provider: runtime.model.provider, models: runtime.model.models });
}

interface WorkerContext {
  rt: Runtime;
  post: (m: WorkerMessage) => void;
  /** Side calls in flight, by the host's id, so the host can abort them. */
  calls: Map<number, AbortController>;
  turns: FewPerLoopTurn;
  commands: ChannelCommandRunner;
}

function handle({ rt, post, calls, turns, commands }: WorkerContext, m: HostMessage): void {
  const answer = (id: number, work: () => Promise<unknown>) => {
    // A throw before the first await (a malformed message) is an answer too, never a dead worker.
    Promise.resolve()
      .then(work)
      .then(
        (value) => post({ type: 'done', id, value }),
        (err) => post({ type: 'failed', id, error: toWire(err) }),
      );
  };
  switch (m.type) {
    case 'respond':
      return answer(m.id, async () => {
        await turns.next();
        const reply = await rt.engine.respond(m.ref, m.messages, { onModelRequest: () => post({ type: 'model-request', id: m.id }) });
        // The text only: the prompt and recall stay here (a reply's clone is a few hundred bytes).
        return { text: reply.text };
      });
    case 'forget':
      // Behind the turns asked for before it (the same queue): a deleted message is never stored after its delete.
      return answer(m.id, () => turns.next().then(() => rt.engine.forgetMessage(m.ref, m.messageId)));
    case 'command':
      return answer(m.id, () => turns.next().then(() => commands(m.ref, m.actor, m.command)));
    case 'model': {
      const ac = new AbortController();
      calls.set(m.id, ac);
      const onText = m.stream ? (delta: string) => post({ type: 'text', id: m.id, delta }) : undefined;
      return answer(m.id, () => rt.model.complete({ ...m.request, signal: ac.signal, onText }).finally(() => calls.delete(m.id)));
    }
    case 'abort':
      calls.get(m.id)?.abort(new Error('the caller aborted the model call'));
      return;
    case 'search':
      return answer(m.id, () => rt.recall.search(m.request));
    case 'recall-idle':
      return answer(m.id, () => rt.recall.idle());
    case 'close':
      return answer(m.id, () => rt.close());
    case 'usage':
      void rt.usage.add(m.ref, m.model, 'side', m.usage, m.at).catch((err) => rt.logger.warn({ err }, 'could not count a side call in usage.json'));
      return;
    case 'append-logs':
      for (const { ref, record } of m.lines) {
        rt.store.appendJsonl(rt.store.paths(ref).log, record).catch((err) => rt.logger.warn({ err }, 'could not append to log.jsonl'));
      }
      return;
    case 'warm':
      return rt.recall.warm(m.dirs);
    case 'warm-up':
      return warmUp(rt, m.guildIds);
    case 'abort-all':
      return rt.abortModelCalls(m.reason);
  }
}

/**
 * The engine marks every message of a turn at once: the marks go to the host in one message per
 * turn and stage, not one per message (the benchmark's probe must not cost the turn much).
 */
function traceForwarder(post: (m: WorkerMessage) => void): NonNullable<Probes['trace']> {
  let marks: Extract<WorkerMessage, { type: 'trace' }>['marks'] = [];
  return (messageId, stage, at) => {
    if (marks.length === 0) {
      queueMicrotask(() => {
        post({ type: 'trace', marks });
        marks = [];
      });
    }
    // Each thread has its own performance origin: the epoch time crosses.
    marks.push({ messageId, stage, at: performance.timeOrigin + at });
  };
}
