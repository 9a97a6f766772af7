/**
 * The decisions of the embedding worker's queue (workerEmbedder.ts), pure so they are tested alone:
 * how long the model will take for a batch, whether a new query can be embedded within its wait,
 * and which waiting queries go to the model together.
 *
 * A batch costs a fixed part plus a part per text. Warm USE-lite on the two-core machine of
 * docs/benchmarks.md (2026-11-28, other work running): 1 text 17 ms, 2 texts 16 ms, 8 texts 36 ms,
 * 32 texts 147 ms; so 12 ms + 4.3 ms a text. Twelve queries of concurrent turns cost ~64 ms as one
 * batch, ~200 ms one by one. The shape is kept and one factor, `speed`, is measured: the machine's
 * load (or another model) scales every batch alike.
 *
 * In the load bench's burst (`node bench/load.js --channels 40 --messages 5`, same machine) the
 * model's thread, at nice 10, got a fraction of a core: batches took 2.4× to 5× these times, and
 * consecutive ones differed by up to 2×. Hence a batch is planned to end within half of the wait
 * left (PLAN_MARGIN): one that misses costs each of its turns the whole wait and yields nothing,
 * one planned small costs a vector.
 */

/** The fixed part of a batch at speed 1 (see above). */
export const BATCH_FIXED_MS = 12;
/** Each text's part at speed 1 (see above). */
export const PER_TEXT_MS = 4.3;

/** How many times its expected length a batch is planned to have (see above). */
export const PLAN_MARGIN = 2;
/**
 * How much of the speed the last batch sets. The model's share of the cores moves within a burst
 * (see above): the last batch says the most about the next one.
 */
const SPEED_WEIGHT = 0.5;

/** Milliseconds the model is expected to take for a batch of `texts` at this speed. */
export function batchMs(speed: number, texts: number): number {
  return speed * (BATCH_FIXED_MS + PER_TEXT_MS * texts);
}

/**
 * The speed after a batch of `texts` took `tookMs`: a moving average (SPEED_WEIGHT), or that batch's
 * alone when there is no speed to average with.
 */
export function updatedSpeed(speed: number | undefined, texts: number, tookMs: number): number {
  if (!(texts > 0) || !(tookMs >= 0)) return speed ?? 1;
  const sample = tookMs / batchMs(1, texts);
  return speed === undefined ? sample : (1 - SPEED_WEIGHT) * speed + SPEED_WEIGHT * sample;
}

/**
 * The speed once a batch of `texts` has run `elapsedMs` without an answer (a query of it gave up
 * waiting): at least that slow. A model starved of CPU (its thread runs at nice 10, and the machine
 * may be busy) is known slow from the first query it lets down, not only once its batch is done.
 */
export function speedAtLeast(speed: number, texts: number, elapsedMs: number): number {
  if (!(texts > 0) || !(elapsedMs >= 0)) return speed;
  return Math.max(speed, elapsedMs / batchMs(1, texts));
}

/**
 * When the model should be free: the batch in flight's expected end. One that is already late by
 * some time is expected to need as much again (a model stuck on a slow batch refuses new queries
 * rather than admit them on a stale estimate).
 */
export function freeAt(now: number, inFlightEnd: number | undefined): number {
  if (inFlightEnd === undefined) return now;
  return inFlightEnd >= now ? inFlightEnd : now + (now - inFlightEnd);
}

/** A query waiting for the model: its texts and when its caller stops waiting (Infinity: never). */
export interface WaitingQuery {
  texts: number;
  deadline: number;
}

/**
 * Whether a new query of `own` texts is planned to be embedded before `deadline` (PLAN_MARGIN):
 * after the batch in flight, in one batch with the queries already waiting.
 */
export function admits(o: {
  now: number;
  inFlightEnd: number | undefined;
  waiting: readonly WaitingQuery[];
  own: number;
  deadline: number;
  speed: number;
}): boolean {
  const queued = o.waiting.reduce((n, q) => n + q.texts, 0);
  const wait = freeAt(o.now, o.inFlightEnd) - o.now + batchMs(o.speed, queued + o.own);
  return o.now + PLAN_MARGIN * wait <= o.deadline;
}

/**
 * Which waiting queries (indices, in order) go to the model at `now`: the longest run from the
 * front whose batch is planned to end before every member's deadline (PLAN_MARGIN), at most `max`.
 * `late` are those that cannot make their deadline alone, now or in the batch after this one: their
 * callers are told at once rather than wait for nothing. The others wait for the next batch.
 */
export function nextQueryBatch(waiting: readonly WaitingQuery[], now: number, speed: number, max: number): { take: number[]; late: number[] } {
  const take: number[] = [];
  const late: number[] = [];
  const fits = (ms: number, deadline: number) => now + PLAN_MARGIN * ms <= deadline;
  let texts = 0;
  let deadline = Infinity;
  let i = 0;
  for (; i < waiting.length; i++) {
    const q = waiting[i];
    if (!fits(batchMs(speed, q.texts), q.deadline)) {
      late.push(i);
      continue;
    }
    const by = Math.min(deadline, q.deadline);
    if (take.length >= max || !fits(batchMs(speed, texts + q.texts), by)) break;
    take.push(i);
    texts += q.texts;
    deadline = by;
  }
  const thisBatch = take.length ? batchMs(speed, texts) : 0;
  for (; i < waiting.length; i++) if (!fits(thisBatch + batchMs(speed, waiting[i].texts), waiting[i].deadline)) late.push(i);
  return { take, late };
}
