import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../log/logger';
import type { Embedder } from './types';
import { USE_LITE_ID } from './useLite';
import type { EmbedRequest, WorkerReply } from './worker';

/**
 * The main thread's side of the embedding worker. One request is in the worker at a time and
 * queries jump the queue, so a reply's query waits for at most one document batch, never for a
 * whole indexing run. The worker is started on first use and never keeps the process alive.
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
}

/** ~16 lines take ~100 ms on two cores: the most a query can wait behind indexing. */
const DEFAULT_BATCH = 16;
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
  private inFlight: { reqId: number; job: Job } | undefined;
  private readonly queries: Job[] = [];
  private readonly documents: Job[] = [];
  private readonly batch: number;

  constructor(private readonly o: WorkerEmbedderOptions) {
    this.id = o.id ?? USE_LITE_ID;
    this.batch = o.batchSize ?? DEFAULT_BATCH;
  }

  embed(texts: string[], opts: { priority?: 'query' | 'document'; signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(new Error('the embedding worker is closed'));
    if (this.failure) return Promise.reject(this.failure);
    if (texts.length === 0) return Promise.resolve([]);
    const parts: Promise<Float32Array[]>[] = [];
    const queue = opts.priority === 'query' ? this.queries : this.documents;
    for (let i = 0; i < texts.length; i += this.batch) {
      parts.push(new Promise<Float32Array[]>((resolve, reject) => queue.push({ texts: texts.slice(i, i + this.batch), resolve, reject })));
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
    const job = this.queries.shift() ?? this.documents.shift();
    if (!job) return;
    const w = this.worker ?? this.start();
    const reqId = this.nextId++;
    this.inFlight = { reqId, job };
    if (this.ready) w.postMessage({ reqId, texts: job.texts } satisfies EmbedRequest);
  }

  private onMessage(w: Worker, m: WorkerReply): void {
    if (w !== this.worker) return;
    if (m.type === 'ready') {
      this.ready = true;
      if (this.inFlight) w.postMessage({ reqId: this.inFlight.reqId, texts: this.inFlight.job.texts } satisfies EmbedRequest);
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
    if (m.type === 'result') cur.job.resolve(m.vectors);
    else cur.job.reject(new Error(`embedding failed: ${m.error}`));
    this.pump();
  }

  private onExit(w: Worker, err: Error): void {
    if (w !== this.worker) return;
    this.worker = undefined;
    if (this.closed) return;
    const cur = this.inFlight;
    this.inFlight = undefined;
    cur?.job.reject(err);
    if (this.failure) return;
    if (++this.restarts > MAX_RESTARTS) {
      this.fail(new Error(`the embedding worker keeps crashing (${err.message})`));
      return;
    }
    this.o.logger.warn({ err }, 'embedding worker stopped; it restarts on the next request');
    this.pump();
  }

  private fail(err: Error): void {
    if (!this.failure) this.o.logger.warn({ err }, 'semantic recall unavailable; recall scores by words only');
    this.failure = err;
    this.failAll(err);
  }

  private failAll(err: Error): void {
    const cur = this.inFlight;
    this.inFlight = undefined;
    cur?.job.reject(err);
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
