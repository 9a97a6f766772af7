import type { Logger } from '../log/logger';
import type { Embedder } from '../embed/types';
import { dot } from '../embed/types';
import { textHash, VectorCache } from '../embed/vectorCache';
import { readPackagedVectors } from '../embed/packagedVectors';
import type { Index } from './types';
import type { Candidate } from './sources';
import { hasCjk } from './tokenize';
import { NULL_CHAT_LINES } from './nullChat';
import { NULL_TECH_LINES } from './nullTech';
import { Calibration, calibrate } from './calibration';
import { CommonPart, commonPartOf, residualCosine, residualOf, residualSize, withoutCommon } from './commonPart';

/**
 * Vectors for recall candidates: looked up in the content-addressed cache, and embedded in the
 * background when missing. A query never waits for a candidate's vector: `cosines` answers with what
 * is there now (NaN for the rest) and queues the rest.
 *
 * Text in scripts the packaged model was not trained on (Chinese, Japanese, Korean) is never
 * embedded: its vectors would be noise, so those entries are scored by words alone.
 */
export interface CandidateVectorsOptions {
  embedder: Embedder;
  cache: VectorCache;
  logger: Logger;
  /** Texts per background request. */
  batchSize?: number;
}

/** Per index: the hash of each candidate's text ('' = never embedded) and its vector once known. */
interface IndexVectors {
  hashes: string[];
  vecs: (Float32Array | undefined)[];
  missing: number;
  /** cache.size when `vecs` was last filled in. */
  seen: number;
  /** What everyday chat scores against this index (see `chatBar`), and how many vectors it saw. */
  bar?: { known: number; value: number };
  /**
   * Each line's part along the null's common part (commonPart.ts), `residualSize` numbers a line,
   * computed on first use (NaN until then).
   */
  residuals?: Float64Array;
}

/**
 * What a message's vector says beside the per-candidate cosines: how close it is to messages about
 * nothing in particular (everyday chat, generic technical questions), the embedder's scale, and
 * (computed only when asked, it costs a pass over the channel) the channel's own bar.
 */
export interface DenseView {
  /** Cosine per candidate id; NaN where the candidate has no vector yet. */
  cos: Float32Array;
  /**
   * The message's highest cosine with the shipped everyday chat lines, and with the shipped generic
   * technical messages; NaN until they are embedded. A message closer to one of those than to any
   * line of the channel is about nothing the channel knows.
   */
  chat: number;
  tech: number;
  /**
   * How much closer the message is to a generic technical message than to any line of the channel,
   * compared on what sets texts apart (the null's common part taken away, commonPart.ts), in that
   * comparison's own standard deviations; NaN until the null is embedded, -Infinity with no line.
   * Computed when first asked (a pass over the channel and the technical null, ~0.3 ms): a message
   * that words open needs it only when one rare word alone opened it.
   */
  techGap(): number;
  /** The embedder's scale (calibration.ts), from the same null; undefined until it is embedded. */
  calibration: Calibration | undefined;
  /**
   * The cosine everyday chat reaches against this channel: per shipped chat line its best cosine
   * with the channel's lines, at the 90th percentile. NaN until the chat lines are embedded.
   */
  chatBar(): number;
}

/**
 * The share of shipped chat lines a channel's bar sits above: its 90th percentile, so one chat line
 * that happens to resemble a channel line does not close meaning for the channel. Chosen with the
 * meaning gates on the abstention bench (issue 23, grid 0.75 / 0.9 / 1.0: see RecallTuning.denseFloor).
 */
const CHAT_BAR_QUANTILE = 0.9;

/** The null, in the order the bar and the calibration read it: everyday chat first. */
export const NULL_LINES: readonly string[] = [...NULL_CHAT_LINES, ...NULL_TECH_LINES];
const NULL_HASHES = NULL_LINES.map(textHash);
/** The name of the null's shipped vectors (assets/vectors/). */
export const NULL_VECTORS_NAME = 'recall-null';

/** Names this exact list of null lines: shipped vectors made for another list are not used. */
export function nullDigest(): string {
  return textHash(NULL_HASHES.join('\n'));
}

/**
 * One background request: big enough to amortise the worker round trip, small enough to keep queries
 * quick (a query waits behind at most one batch: ~64 lines of ~110 characters). Not fitted: a speed
 * bound, checked by bench/recall-speed.js and bench/load.js.
 */
const DEFAULT_BATCH = 64;

export class CandidateVectors {
  private readonly perIndex = new WeakMap<Index, IndexVectors>();
  /**
   * Each candidate's text hash, kept as long as its parsed file is (SourceCache): an index rebuilt
   * because one file changed hashes only that file's lines again.
   */
  private readonly hashOf = new WeakMap<Candidate, string>();
  /** hash → text, waiting to be embedded. */
  private readonly pending = new Map<string, string>();
  private running: Promise<void> | undefined;
  /** After a failed batch (a 429, a server down), indexing waits until then; queries still work. */
  private pausedUntil = 0;
  /**
   * The shipped null's vectors (everyday chat, then generic technical lines), once all are embedded;
   * what all of them share, and the technical lines and the scale without it (commonPart.ts).
   */
  private null:
    | { chat: Float32Array[]; tech: Float32Array[]; calibration: Calibration; common: CommonPart; techApart: Float32Array[]; apartCalibration: Calibration }
    | undefined;
  private packagedTried = false;

  constructor(private readonly o: CandidateVectorsOptions) {}

  /**
   * Milliseconds indexing waits after a failed batch before trying again: an API's rate limit or an
   * outage is not hammered, and recall goes by words meanwhile. A choice, not a measured value.
   */
  static readonly RETRY_MS = 60_000;

  get modelId(): string {
    return this.o.embedder.id;
  }

  /** Cosine of each candidate with `query`, NaN where no vector is known yet; queues those. */
  cosines(index: Index, query: Float32Array): Float32Array {
    const iv = this.vectorsOf(index);
    const out = new Float32Array(index.n);
    for (let i = 0; i < index.n; i++) {
      const v = iv.vecs[i];
      out[i] = v ? dot(v, query) : NaN;
    }
    return out;
  }

  /** The cosines, and where the message and this channel stand against the null. */
  dense(index: Index, query: Float32Array): DenseView {
    const cos = this.cosines(index, query);
    const nul = this.nullVectors();
    const chat = nul ? bestOf(nul.chat, query) : NaN;
    const tech = nul ? bestOf(nul.tech, query) : NaN;
    let gap: number | undefined;
    const techGap = () => (gap ??= nul ? this.techGap(index, cos, query, nul) : NaN);
    return { cos, chat, tech, techGap, calibration: nul?.calibration, chatBar: () => this.chatBar(index) };
  }

  /**
   * The message's best with a generic technical line minus its best with a line of the channel, both
   * without the null's common part, in that comparison's standard deviations. A pass over the channel
   * of a few multiplications a line (each line's residual is computed once).
   */
  private techGap(index: Index, cos: Float32Array, query: Float32Array, nul: NonNullable<CandidateVectors['null']>): number {
    const iv = this.vectorsOf(index);
    const size = residualSize(nul.common);
    const residuals = (iv.residuals ??= new Float64Array(index.n * size).fill(NaN));
    const q = residualOf(query, nul.common);
    let best = -Infinity;
    for (let i = 0; i < index.n; i++) {
      const v = iv.vecs[i];
      if (!v) continue;
      if (Number.isNaN(residuals[i * size])) residualOf(v, nul.common, residuals, i * size);
      const c = residualCosine(cos[i], residuals, q, nul.common, i * size);
      if (c > best) best = c;
    }
    if (best === -Infinity) return -Infinity;
    const techBest = bestOf(nul.techApart, withoutCommon(query, nul.common));
    return (techBest - best) / nul.apartCalibration.sd;
  }

  /** The embedder's scale, once the null is embedded (queued otherwise). */
  calibration(): Calibration | undefined {
    return this.nullVectors()?.calibration;
  }

  /**
   * Per shipped chat line, its best cosine with the index's lines; the CHAT_BAR_QUANTILE of those.
   * Cached per index until more of its vectors are known. A pass over the channel (~70 dot products a
   * line, ~35 ms for 1,000 lines), paid only when meaning alone might open recall.
   */
  private chatBar(index: Index): number {
    const chatVecs = this.nullVectors()?.chat;
    if (!chatVecs) return NaN;
    const iv = this.vectorsOf(index);
    const known = index.n - iv.missing;
    // While the channel is being embedded, the bar is recomputed when a twentieth more is known (a
    // bound on work: a pass over the channel each time, not a fitted value).
    if (iv.bar && (iv.bar.known === known || (iv.missing > 0 && known < iv.bar.known * 1.05))) return iv.bar.value;
    const best = new Float64Array(chatVecs.length).fill(-1);
    for (const v of iv.vecs) {
      if (!v) continue;
      for (let k = 0; k < chatVecs.length; k++) {
        const c = dot(v, chatVecs[k]);
        if (c > best[k]) best[k] = c;
      }
    }
    const sorted = Array.from(best).sort((a, b) => a - b);
    const value = sorted[Math.min(sorted.length - 1, Math.floor(CHAT_BAR_QUANTILE * (sorted.length - 1)))];
    iv.bar = { known, value };
    return value;
  }

  /** The shipped null's vectors and the scale they give, once embedded (queued with the first lines otherwise). */
  private nullVectors(): CandidateVectors['null'] {
    if (this.null) return this.null;
    this.usePackagedNull();
    const vecs: Float32Array[] = [];
    for (const line of NULL_LINES) {
      const h = textHash(line);
      const v = this.o.cache.get(h);
      if (v) vecs.push(v);
      else if (!this.pending.has(h)) this.pending.set(h, line);
    }
    if (vecs.length === NULL_LINES.length) {
      const common = commonPartOf(vecs);
      const apart = vecs.map((v) => withoutCommon(v, common));
      this.null = {
        chat: vecs.slice(0, NULL_CHAT_LINES.length),
        tech: vecs.slice(NULL_CHAT_LINES.length),
        calibration: calibrate(vecs),
        common,
        techApart: apart.slice(NULL_CHAT_LINES.length),
        apartCalibration: calibrate(apart),
      };
    } else this.kick();
    return this.null;
  }

  /**
   * Once: the null's vectors shipped with the package for this model (embed/packagedVectors.ts) go
   * into the cache, so a new data root need not embed them; a file for other lines is ignored.
   */
  private usePackagedNull(): void {
    if (this.packagedTried) return;
    this.packagedTried = true;
    if (this.o.cache.get(NULL_HASHES[NULL_HASHES.length - 1]) && this.o.cache.get(NULL_HASHES[0])) return;
    const shipped = readPackagedVectors(NULL_VECTORS_NAME, this.o.embedder.id);
    if (!shipped || shipped.digest !== nullDigest() || shipped.vectors.length !== NULL_HASHES.length) return;
    this.o.cache.putMany(NULL_HASHES.map((hash, i) => ({ hash, vector: shipped.vectors[i] })));
  }

  /** Queues every candidate of `index` that has no vector, in the background; how many are waiting. */
  queue(index: Index): number {
    this.nullVectors();
    this.vectorsOf(index);
    return this.pending.size;
  }

  /** Reads the cache file now (at start), not on the first message, and queues the chat lines. */
  loadCache(): void {
    void this.o.cache.size;
    this.nullVectors();
  }

  /** Queues every candidate of `index` that has no vector; resolves when the queue has drained. */
  indexAll(index: Index): Promise<void> {
    this.nullVectors();
    this.vectorsOf(index);
    return this.running ?? Promise.resolve();
  }

  /** Drops what is queued (a shutdown must not wait for a whole indexing run), lands the rest. */
  async stop(): Promise<void> {
    this.pending.clear();
    this.pausedUntil = Infinity;
    await this.running;
    await this.o.cache.flush();
  }

  /** Resolves when nothing is queued or being embedded. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
    await this.o.cache.flush();
  }

  private vectorsOf(index: Index): IndexVectors {
    let iv = this.perIndex.get(index);
    if (!iv) {
      const hashes = index.cands.map((c) => this.hash(c));
      iv = { hashes, vecs: new Array(index.n), missing: index.n, seen: -1 };
      this.perIndex.set(index, iv);
    }
    const size = this.o.cache.size;
    if (iv.missing > 0 && iv.seen !== size) {
      iv.seen = size;
      let missing = 0;
      for (let i = 0; i < index.n; i++) {
        if (iv.vecs[i] || !iv.hashes[i]) continue;
        const v = this.o.cache.get(iv.hashes[i]);
        if (v) iv.vecs[i] = v;
        else {
          missing++;
          if (!this.pending.has(iv.hashes[i])) this.pending.set(iv.hashes[i], embedText(index.cands[i]));
        }
      }
      iv.missing = missing;
    }
    this.kick();
    return iv;
  }

  private hash(c: Candidate): string {
    let h = this.hashOf.get(c);
    if (h === undefined) {
      h = embeddable(c) ? textHash(embedText(c)) : '';
      this.hashOf.set(c, h);
    }
    return h;
  }

  private kick(): void {
    if (this.running || this.pending.size === 0 || Date.now() < this.pausedUntil) return;
    this.running = this.drain().finally(() => {
      this.running = undefined;
    });
  }

  private async drain(): Promise<void> {
    const batch = this.o.batchSize ?? DEFAULT_BATCH;
    while (this.pending.size > 0) {
      const hashes = Array.from(this.pending.keys()).slice(0, batch);
      const texts = hashes.map((h) => this.pending.get(h)!);
      try {
        const vectors = await this.o.embedder.embed(texts, { priority: 'document' });
        this.o.cache.putMany(hashes.map((hash, i) => ({ hash, vector: vectors[i] })));
        for (const h of hashes) this.pending.delete(h);
      } catch (err) {
        // The embedder logs its own unavailability once; what is queued stays queued, and the entries
        // are scored by words until a later attempt succeeds.
        this.pausedUntil = Date.now() + CandidateVectors.RETRY_MS;
        this.o.logger.debug({ err }, 'background embedding paused');
        return;
      }
    }
  }
}

function bestOf(vecs: readonly Float32Array[], query: Float32Array): number {
  let best = -Infinity;
  for (const v of vecs) best = Math.max(best, dot(v, query));
  return best;
}

function embeddable(c: Candidate): boolean {
  return c.body.trim().length > 0 && !hasCjk(c.body);
}

/** What the model reads for a candidate: the entry without bullet, id or provenance tag. */
export function embedText(c: Candidate): string {
  const body = c.body.replace(/\s+/g, ' ').trim();
  return body.length > MAX_EMBED_CHARS ? body.slice(0, MAX_EMBED_CHARS) : body;
}

/**
 * USE-lite reads whole sentences; beyond a paragraph it only averages more words. A cost bound (the
 * model's time grows with length), far above a memory line (~110 characters); not fitted.
 */
const MAX_EMBED_CHARS = 2_000;
