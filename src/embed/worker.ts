/**
 * The embedding worker thread: loads the model once and embeds batches on request, so that model
 * loading and the ~5–25 ms per line of inference never run on the bot's event loop (the gateway
 * heartbeat and every channel's replies share that loop).
 *
 * Protocol (structured clone): in `{ reqId, texts }`; out `{ type: 'ready', id }` once, or
 * `{ type: 'failed', error }` if the model cannot load; then `{ reqId, vectors }` or `{ reqId, error }`.
 * `workerData.modelModule`, when set, names a module exporting `load(): Promise<LoadedModel>` (tests
 * use it for a model that crashes or fails to load).
 */
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { LoadedModel, loadUseLite } from './useLite';

/**
 * This thread runs at a lower scheduling priority (nice 10) where the system allows it (Linux: a
 * thread's own nice value, set through its thread id). Meaning is best effort — a turn waits
 * ~150 ms for its query's vector, then goes by words — while the turns, the gateway and the replies
 * are not: on a machine whose cores are all busy (a burst of new channels), the sentence model
 * should take what they leave, not a core from them.
 */
const EMBEDDING_NICE = 10;

function lowerThisThreadsPriority(): void {
  try {
    // "<pid>/task/<tid>": Linux names the calling thread so; elsewhere there is no such link.
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, EMBEDDING_NICE);
  } catch {
    // Silent on purpose: no /proc (macOS, Windows) or a system that refuses; the model runs at normal priority.
  }
}

export interface EmbedRequest {
  reqId: number;
  texts: string[];
}
export type WorkerReply =
  | { type: 'ready'; id: string }
  | { type: 'failed'; error: string }
  | { type: 'result'; reqId: number; vectors: Float32Array[] }
  | { type: 'error'; reqId: number; error: string };

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) return;
  lowerThisThreadsPriority();
  const modelModule = (workerData as { modelModule?: string } | undefined)?.modelModule;
  let model: LoadedModel;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    model = modelModule ? await (require(modelModule) as { load(): Promise<LoadedModel> }).load() : await loadUseLite();
  } catch (err) {
    port.postMessage({ type: 'failed', error: (err as Error).message ?? String(err) } satisfies WorkerReply);
    return;
  }
  port.postMessage({ type: 'ready', id: model.id } satisfies WorkerReply);
  // One request at a time, in arrival order: the main thread decides the order (queries first).
  let chain = Promise.resolve();
  port.on('message', (req: EmbedRequest) => {
    chain = chain.then(async () => {
      try {
        const vectors = await model.embed(req.texts);
        port.postMessage(
          { type: 'result', reqId: req.reqId, vectors } satisfies WorkerReply,
          vectors.map((v) => v.buffer as ArrayBuffer),
        );
      } catch (err) {
        port.postMessage({ type: 'error', reqId: req.reqId, error: (err as Error).message ?? String(err) } satisfies WorkerReply);
      }
    });
  });
}

// A failed load is posted inside; anything else that throws here is told the host the same way.
void main().catch((err: unknown) => {
  parentPort?.postMessage({ type: 'failed', error: err instanceof Error ? err.message : String(err) } satisfies WorkerReply);
});
