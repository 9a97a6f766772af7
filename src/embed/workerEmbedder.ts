import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../log/logger';
import { admits, batchMs, nextQueryBatch, speedAtLeast, updatedSpeed, type WaitingQuery } from './queryBatch';
import { oneLineReason, type EmbedOptions, type Embedder, type OnMeaningUnavailable } from './types';
import { USE_LITE_ID } from './useLite';
import type { EmbedRequest, WorkerReply } from './worker';

/**
 * The main thread's side of the embedding worker. One request is in the worker at a time and
 * queries jump the queue, so a reply's query waits for at most one document batch, never for a
 * whole indexing run. Queries go to the model together: those asked within a moment of each other
 * (GATHER_MS) or while a batch runs make one batch, each caller getting its own vector, since a
 * batch costs the model far less than the same texts one by one (queryBatch.ts). A query never
 * waits past its `maxWaitMs`: refused at once when the queue says it would, rejected when it has.
 * The worker is started on first use and never keeps the process alive.
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
 * The most queries in one batch, and waiting. Beyond this many waiting, a new query is refused at
 * once: during a burst across many channels, recall goes by words rather than make every reply
 * wait for the model (32 texts take ~150 ms, a turn's whole wait).
 */
const MAX_WAITING_QUERIES = 32;
/**
 * How long a query asked of an idle model waits for others: the turns of a burst ask within a
 * millisecond or two of each other (issue 41 §5: 18 queries in 8 ms), and each one that joins saves
 * the batch's fixed ~12 ms, against at most this for a query asked alone.
 */
const GATHER_MS = 2;
/**
 * How long a measured speed holds. Older, it says nothing of the machine now: the model's share of
 * the cores moves with the load (in the load bench's burst a batch took 2.4× to 8× its idle time,
 * and a first batch of 20 planned on the idle speed made 20 turns each wait out their bound for
 * nothing; each such turn's reply then missed the first second of Discord's REST budget and held
 * its channel's next turn ~1 s). So with no fresh speed, one query goes alone and those asked while
 * it runs go by words; its answer sets the speed. This also lets a model judged too slow be tried
 * again, since refused queries measure nothing.
 */
const SPEED_FRESH_MS = 5_000;
/** A crash loop (out of memory, a broken WASM build) should not respawn threads forever. */
const MAX_RESTARTS = 3;

interface Job {
  texts: string[];
  resolve(v: Float32Array[]): void;
  reject(e: Error): void;
  /** When the caller stops waiting (performance.now()); Infinity for documents and unbounded queries. */
  deadline: number;
}

export class WorkerEmbedder implements Embedder {
  readonly id: string;
  private worker: Worker | undefined;
  private ready = false;
  private failure: Error | undefined;
  private restarts = 0;
  private closed = false;
  private nextId = 1;
  private inFlight: { reqId: number; jobs: Job[]; sentAt?: number } | undefined;
  private readonly queries: Job[] = [];
  private readonly documents: Job[] = [];
  private readonly batch: number;
  /** The model's measured speed against queryBatch.ts's reference (moving average; 1 = as measured there). */
  private speed = 1;
  /** Whether this worker's first batch is done: it loads kernels, so it is never a measure of speed. */
  private warmed = false;
  private gathering: NodeJS.Timeout | undefined;
  private measuredAt = -Infinity;

  constructor(private readonly o: WorkerEmbedderOptions) {
    this.id = o.id ?? USE_LITE_ID;
    this.batch = o.batchSize ?? DEFAULT_BATCH;
  }

  embed(texts: string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(new Error('the embedding worker is closed'));
    if (this.failure) return Promise.reject(this.failure);
    if (texts.length === 0) return Promise.resolve([]);
    const isQuery = opts.priority === 'query';
    const now = performance.now();
    const deadline = isQuery ? now + (opts.maxWaitMs ?? Infinity) : Infinity;
    if (isQuery && (this.queries.length >= MAX_WAITING_QUERIES || !this.admits(now, texts.length, deadline))) return Promise.reject(busy());
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const parts: Promise<Float32Array[]>[] = [];
    const queue = isQuery ? this.queries : this.documents;
    const mine: Job[] = [];
    // A query is one job (it goes with the others waiting); documents go in batches of `batch`.
    const size = isQuery ? texts.length : this.batch;
    for (let i = 0; i < texts.length; i += size) {
      parts.push(
        new Promise<Float32Array[]>((resolve, reject) => {
          const job = { texts: texts.slice(i, i + size), resolve, reject, deadline };
          mine.push(job);
          queue.push(job);
        }),
      );
    }
    if (Number.isFinite(deadline)) {
      // Its caller has gone on without it by then: queued, it is dropped; in the worker, its part
      // of the batch's answer is ignored.
      const timer = setTimeout(() => this.giveUp(mine, queue), deadline - now);
      timer.unref();
      const clear = () => clearTimeout(timer);
      Promise.allSettled(parts).then(clear, clear);
    }
    if (signal) {
      // A query whose reply went ahead without it (its wait ran out) is not embedded: under a burst
      // that work would only delay the queries still waiting. A batch already in the worker finishes.
      const drop = () => this.drop(mine, queue, signal.reason instanceof Error ? signal.reason : new Error('the embedding was no longer wanted'), true);
      signal.addEventListener('abort', drop, { once: true });
      const unlisten = () => signal.removeEventListener('abort', drop);
      Promise.allSettled(parts).then(unlisten, unlisten);
    }
    if (isQuery && !this.inFlight && !this.gathering) {
      this.gathering = setTimeout(() => {
        this.gathering = undefined;
        this.pump();
      }, GATHER_MS);
      this.gathering.unref();
    }
    this.pump();
    return Promise.all(parts).then((all) => all.flat());
  }

  /** A query's wait is over: it is rejected, and a batch holding it is known to be at least this slow. */
  private giveUp(jobs: Job[], queue: Job[]): void {
    const cur = this.inFlight;
    if (cur?.sentAt !== undefined && this.warmed && jobs.some((j) => cur.jobs.includes(j))) {
      const now = performance.now();
      this.speed = speedAtLeast(this.fresh(now) ? this.speed : 0, textsOf(cur.jobs), now - cur.sentAt);
      this.measuredAt = now;
    }
    this.drop(jobs, queue, busy());
  }

  /** Rejects these jobs; those still queued leave the queue, those in the worker too unless `queuedOnly`. */
  private drop(jobs: Job[], queue: Job[], err: Error, queuedOnly = false): void {
    for (const job of jobs) {
      const at = queue.indexOf(job);
      if (at >= 0) queue.splice(at, 1);
      else if (queuedOnly) continue;
      job.reject(err);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.gathering);
    this.gathering = undefined;
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
    this.warmed = false;
    return w;
  }

  private pump(): void {
    // Documents wait while queries gather, too: they would hold the model for a batch.
    if (this.closed || this.failure || this.inFlight || this.gathering) return;
    let jobs: Job[];
    if (this.queries.length > 0) {
      // Before the model is ready its speed is unknown, and a probe is to measure it: every waiting
      // query goes (at most MAX_WAITING_QUERIES), each bound by its timer.
      const now = performance.now();
      const speed = this.ready && this.fresh(now) ? this.speed : 0;
      const { take, late } = nextQueryBatch(this.queries.map(waiting), now, speed, MAX_WAITING_QUERIES);
      const gone = new Set([...take, ...late]);
      const lateJobs = late.map((i) => this.queries[i]);
      jobs = take.map((i) => this.queries[i]);
      this.queries.splice(0, this.queries.length, ...this.queries.filter((_, i) => !gone.has(i)));
      for (const j of lateJobs) j.reject(busy());
    } else {
      jobs = this.documents.splice(0, 1);
    }
    if (jobs.length === 0) return;
    const w = this.worker ?? this.start();
    const reqId = this.nextId++;
    this.inFlight = { reqId, jobs };
    if (this.ready) this.send(w);
  }

  /** Whether a new query of `own` texts is likely embedded before its deadline (queryBatch.ts). */
  private admits(now: number, own: number, deadline: number): boolean {
    // A query with no bound waits as long as it takes. One asked while the model loads (~1 s) would
    // wait out its bound: there is no fresh speed then either, so only a first query goes (below).
    if (deadline === Infinity) return true;
    const cur = this.inFlight;
    if (!this.fresh(now)) return !cur && this.queries.length === 0;
    const inFlightEnd = cur?.sentAt === undefined ? undefined : cur.sentAt + batchMs(this.speed, textsOf(cur.jobs));
    return admits({ now, inFlightEnd, waiting: this.queries.map(waiting), own, deadline, speed: this.speed });
  }

  /** Whether the measured speed still holds (SPEED_FRESH_MS); if not, one query goes alone to measure it. */
  private fresh(now: number): boolean {
    return now - this.measuredAt <= SPEED_FRESH_MS;
  }

  private send(w: Worker): void {
    const cur = this.inFlight!;
    cur.sentAt = performance.now();
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
      void w.terminate().catch((err) => this.o.logger.warn({ err }, 'could not stop the embedding worker whose model failed to load'));
      return;
    }
    const cur = this.inFlight;
    if (!cur || cur.reqId !== m.reqId) return;
    this.inFlight = undefined;
    if (m.type === 'result') {
      if (this.warmed && cur.sentAt !== undefined) {
        // A stale speed is not averaged with: it described another moment's machine.
        const was = this.fresh(cur.sentAt) ? this.speed : undefined;
        this.speed = updatedSpeed(was, textsOf(cur.jobs), performance.now() - cur.sentAt);
        this.measuredAt = performance.now();
      }
      this.warmed = true;
      let at = 0;
      for (const j of cur.jobs) {
        j.resolve(m.vectors.slice(at, at + j.texts.length));
        at += j.texts.length;
      }
    } else {
      const err = new Error(`embedding failed: ${oneLineReason(m.error)}`);
      for (const j of cur.jobs) j.reject(err);
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

const textsOf = (jobs: readonly Job[]): number => jobs.reduce((n, j) => n + j.texts.length, 0);
const waiting = (j: Job): WaitingQuery => ({ texts: j.texts.length, deadline: j.deadline });

/** What a query's caller hears when the model cannot embed it in time: recall then goes by words. */
const busy = (): Error => new Error('the embedding worker is busy');

/**
 * The compiled worker next to this file; when this file runs from TypeScript sources (jest), the
 * compiled copy in dist/ (`npm test` builds it first), since a worker thread cannot load .ts.
 */
function workerFile(): string {
  const here = path.join(__dirname, 'worker.js');
  if (fs.existsSync(here)) return here;
  return path.resolve(__dirname, '..', '..', 'dist', 'embed', 'worker.js');
}
