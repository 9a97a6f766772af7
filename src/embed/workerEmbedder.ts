import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../log/logger';
import { oneLineReason, type EmbedOptions, type Embedder, type OnMeaningUnavailable } from './types';
import { USE_LITE_ID } from './useLite';
import type { EmbedRequest, WorkerReply } from './worker';

/**
 * The main thread's side of the embedding worker. One request is in the worker at a time and
 * queries jump the queue (those waiting together go as one batch), so a reply's query waits for at
 * most one document batch, never for a whole indexing run. The worker is started on first use and
 * never keeps the process alive.
 *
 * Failure is contained: a model that cannot load makes every call reject at once (recall then scores
 * lexically; logged once); a worker that crashes is restarted on the next call, at most
 * MAX_RESTARTS times, then treated as a model that cannot load.
 */
export interface WorkerEmbedderOptions {
  logger: Logger;
  /** A module exporting `load()` to run instead of the packaged model (tests). */
  modelModule?: string;
  /** The id of that model. */
  id?: string;
  /** Texts per document batch. */
  batchSize?: number;
  onUnavailable?: OnMeaningUnavailable;
}

/**
 * Document lines per request. A memory line takes ~13 ms on two cores and batching more does not
 * make it cheaper per line, so batches stay small: a query waits at most one batch (~100 ms).
 */
const DEFAULT_BATCH = 8;
/**
 * Queries waiting together go to the worker as one batch (a batch costs ~half as much per text as
 * one at a time). Beyond this many waiting, a new query is refused at once: during a burst across
 * many channels, recall goes by words rather than make every reply wait for the model.
 */
const MAX_WAITING_QUERIES = 32;
/** Before the first measurement: a warm model on two cores (a cold one takes longer, once). */
const INITIAL_MS_PER_TEXT = 15;
/** A crash loop (out of memory, a broken WASM build) should not respawn threads forever. */
const MAX_RESTARTS = 3;

interface Job {
  texts: string[];
  resolve(v: Float32Array[]): void;
  reject(e: Error): void;
}

export class WorkerEmbedder implements Embedder {
  readonly id: string;
  private worker: Worker | undefined;
  private ready = false;
  private failure: Error | undefined;
  private restarts = 0;
  private closed = false;
  private nextId = 1;
  private inFlight: { reqId: number; jobs: Job[] } | undefined;
  private readonly queries: Job[] = [];
  private readonly documents: Job[] = [];
  private readonly batch: number;
  /** Measured milliseconds per text (moving average), for the wait a new query would have. */
  private msPerText = INITIAL_MS_PER_TEXT;
  private sentAt = 0;

  constructor(private readonly o: WorkerEmbedderOptions) {
    this.id = o.id ?? USE_LITE_ID;
    this.batch = o.batchSize ?? DEFAULT_BATCH;
  }

  embed(texts: string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(new Error('the embedding worker is closed'));
    if (this.failure) return Promise.reject(this.failure);
    if (texts.length === 0) return Promise.resolve([]);
    if (opts.priority === 'query' && (this.queries.length >= MAX_WAITING_QUERIES || this.expectedWaitMs(texts.length) > (opts.maxWaitMs ?? Infinity))) {
      return Promise.reject(new Error('the embedding worker is busy'));
    }
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const parts: Promise<Float32Array[]>[] = [];
    const queue = opts.priority === 'query' ? this.queries : this.documents;
    const mine: Job[] = [];
    for (let i = 0; i < texts.length; i += this.batch) {
      parts.push(
        new Promise<Float32Array[]>((resolve, reject) => {
          const job = { texts: texts.slice(i, i + this.batch), resolve, reject };
          mine.push(job);
          queue.push(job);
        }),
      );
    }
    if (signal) {
      // A query whose reply went ahead without it (its wait ran out) is not embedded: under a burst
      // that work would only delay the queries still waiting. A batch already in the worker finishes.
      const drop = () => {
        for (const job of mine) {
          const at = queue.indexOf(job);
          if (at < 0) continue;
          queue.splice(at, 1);
          job.reject(signal.reason instanceof Error ? signal.reason : new Error('the embedding was no longer wanted'));
        }
      };
      signal.addEventListener('abort', drop, { once: true });
      void Promise.allSettled(parts).then(() => signal.removeEventListener('abort', drop));
    }
    this.pump();
    return Promise.all(parts).then((all) => all.flat());
  }

  async close(): Promise<void> {
    this.closed = true;
    this.failAll(new Error('the embedding worker is closed'));
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private start(): Worker {
    const w = new Worker(workerFile(), { workerData: { modelModule: this.o.modelModule } });
    w.unref();
    w.on('message', (m: WorkerReply) => this.onMessage(w, m));
    w.on('error', (err) => this.onExit(w, err));
    w.on('exit', (code) => this.onExit(w, new Error(`the embedding worker exited (code ${code})`)));
    this.worker = w;
    this.ready = false;
    return w;
  }

  private pump(): void {
    if (this.closed || this.failure || this.inFlight) return;
    const jobs = this.queries.length > 0 ? this.queries.splice(0, MAX_WAITING_QUERIES) : this.documents.splice(0, 1);
    if (jobs.length === 0) return;
    const w = this.worker ?? this.start();
    const reqId = this.nextId++;
    this.inFlight = { reqId, jobs };
    if (this.ready) this.send(w);
  }

  /** The texts ahead of a new query (half the batch in flight, on average, plus queued queries) and its own. */
  private expectedWaitMs(own: number): number {
    const inFlight = this.inFlight ? this.inFlight.jobs.reduce((n, j) => n + j.texts.length, 0) / 2 : 0;
    const queued = this.queries.reduce((n, j) => n + j.texts.length, 0);
    return (inFlight + queued + own) * this.msPerText;
  }

  private send(w: Worker): void {
    const cur = this.inFlight!;
    this.sentAt = performance.now();
    w.postMessage({ reqId: cur.reqId, texts: cur.jobs.flatMap((j) => j.texts) } satisfies EmbedRequest);
  }

  private onMessage(w: Worker, m: WorkerReply): void {
    if (w !== this.worker) return;
    if (m.type === 'ready') {
      this.ready = true;
      if (this.inFlight) this.send(w);
      return;
    }
    if (m.type === 'failed') {
      this.fail(new Error(`the sentence model could not load: ${m.error}`));
      void w.terminate();
      return;
    }
    const cur = this.inFlight;
    if (!cur || cur.reqId !== m.reqId) return;
    this.inFlight = undefined;
    if (m.type === 'result') {
      const n = cur.jobs.reduce((k, j) => k + j.texts.length, 0);
      if (n > 0) this.msPerText = 0.8 * this.msPerText + 0.2 * ((performance.now() - this.sentAt) / n);
      let at = 0;
      for (const j of cur.jobs) {
        j.resolve(m.vectors.slice(at, at + j.texts.length));
        at += j.texts.length;
      }
    } else {
      for (const j of cur.jobs) j.reject(new Error(`embedding failed: ${m.error}`));
    }
    this.pump();
  }

  private onExit(w: Worker, err: Error): void {
    if (w !== this.worker) return;
    this.worker = undefined;
    if (this.closed) return;
    const cur = this.inFlight;
    this.inFlight = undefined;
    for (const j of cur?.jobs ?? []) j.reject(err);
    if (this.failure) return;
    if (++this.restarts > MAX_RESTARTS) {
      this.fail(new Error(`the embedding worker keeps crashing (${err.message})`));
      return;
    }
    this.o.logger.warn({ err }, 'embedding worker stopped; it restarts on the next request');
    this.pump();
  }

  private fail(err: Error): void {
    if (!this.failure) {
      const why = oneLineReason(err);
      if (this.o.onUnavailable) this.o.onUnavailable(why);
      else this.o.logger.warn({ reason: why }, 'semantic recall unavailable; recall scores by words only');
    }
    this.failure = err;
    this.failAll(err);
  }

  private failAll(err: Error): void {
    const cur = this.inFlight;
    this.inFlight = undefined;
    for (const j of cur?.jobs ?? []) j.reject(err);
    for (const j of this.queries.splice(0)) j.reject(err);
    for (const j of this.documents.splice(0)) j.reject(err);
  }
}

/**
 * The compiled worker next to this file; when this file runs from TypeScript sources (jest), the
 * compiled copy in dist/ (`npm test` builds it first), since a worker thread cannot load .ts.
 */
function workerFile(): string {
  const here = path.join(__dirname, 'worker.js');
  if (fs.existsSync(here)) return here;
  return path.resolve(__dirname, '..', '..', 'dist', 'embed', 'worker.js');
}
