import { LRUCache } from 'lru-cache';
import type { Logger } from '../log/logger';
import type { Index, RecallInput, RecallResult } from './types';
import { silentLogger } from '../log/logger';
import { Candidate, normalizeForExclude, SourceCache } from './sources';
import { hasCjk, isWeakToken, queryTokens } from './tokenize';
import { pack } from './pack';
import { TopK } from './topK';
import { DenseScorer, fuse } from './fusion';
import { DEFAULT_TUNING, RecallTuning } from './tuning';
import { rareQueryStems } from './rareWords';
import { buildExplanation, newTrace, ScoreTrace } from './explain';

/**
 * Targeted recall: before each model call, the few entries of the channel's memory that matter for
 * the message at hand, and nothing when nothing matters.
 *
 * Candidates are single entries (see sources.ts / markdownBlocks.ts). Scoring is BM25 over the
 * entry bodies; session context (a matching HISTORY summary lifts that day's entries) re-ranks the
 * candidates that match, and never admits any.
 * A candidate is admitted only when its *evidence* clears an absolute threshold: evidence sums a
 * per-term specificity that does not depend on the query's length, so one common word never suffices,
 * and an unrelated message recalls nothing. Every rule here earned its place under
 * leave-one-conversation-out (docs/benchmarks.md) or on the abstention bench. Duplicates across
 * files keep only the copy highest in SESSION > MEMORY > condensations > workspace > HISTORY. The
 * result is whole verbatim lines/paragraphs grouped under a `[file]` or `[file › heading]` line,
 * within a character budget and an item cap.
 */

export interface RecallOptions {
  logger?: Logger;
}

export interface Recall {
  /**
   * `dense`, when given, scores the index's candidates by meaning (see fusion.ts); recall then
   * ranks by both. Without it, recall is lexical only.
   */
  recall(input: RecallInput, dense?: DenseScorer): RecallResult;
}

/** The engine with its index exposed, for the vectors that go beside it (service.ts). */
export interface LexicalRecall extends Recall {
  indexOf(input: Pick<RecallInput, 'channelDirs' | 'workspaceDir'>): Index;
  /** `recall` over an index the caller already has from `indexOf` (one lookup per turn, not two). */
  recallIn(index: Index, input: RecallInput, dense?: DenseScorer): RecallResult;
}

/**
 * The recall block's size when the config does not say (`recall.budgetChars`): a prompt-cost choice,
 * not a fitted value. Every figure is measured at 1,000 / 2,000 / 4,000; 2,000 holds the item cap's
 * 16 lines of ~110 characters (evidence recall 0.634 / 0.680 / 0.710 at the three on the dev four).
 */
export const DEFAULT_BUDGET_CHARS = 2000;
/**
 * Item cap at the default budget. At 2,000 characters a memory line is ~110 characters, so the budget
 * alone would admit ~17 lines; measured on the LoCoMo dev set (docs/benchmarks.md, "Item cap"),
 * evidence recall keeps rising up to ~16 items because questions that need several facts (multi-hop,
 * "what activities does X do") need many short lines, while a cap of 8 loses ~0.05. Every item has to
 * clear the absolute evidence threshold anyway, so the cap bounds prompt noise only for broad
 * messages. Without an explicit `maxItems`, a larger budget raises the cap (RecallTuning.charsPerItem:
 * one item per 125 characters, never below this), so asking for more characters yields more lines.
 * Measured on the two-conversation dev set at 2,000 (no interval; docs/benchmarks.md "Item cap"):
 * 8 items 0.596, 12 0.632, 16 0.641, 20 and 24 0.641.
 */
export const DEFAULT_MAX_ITEMS = 16;

/**
 * BM25 parameters: Lucene's defaults. Other values gain nothing under leave-one-out: (0.9/0.4,
 * 1.5/0.75, 1.2/0.5) held out −0.001 [−0.009, +0.008] at 2,000, the folds picking different values.
 */
export const BM25_K1 = 1.2;
const B = 0.75;
/**
 * A word's evidence: its specificity ln((max(N, N_FLOOR)+1)/(df+0.5)) / SPEC_SCALE, capped at 1, so a
 * word in one entry of a channel of 100+ entries counts fully and evidence does not depend on the
 * query's length. N_FLOOR keeps a small channel's every word from looking specific. Why 100 and 3.5:
 * leave-one-out over (50/3.5, 100/3, 100/4) held out +0.000 at 1,000, 2,000 and 4,000, the folds
 * picking different values; 100/3.5 stays, the gate (gateMin) is calibrated on this scale.
 */
const N_FLOOR = 100;
const SPEC_SCALE = 3.5;
/**
 * Only the best-scored admitted candidates are considered for de-duplication and packing. A bound on
 * work, not a fitted value: at most 32 items are packed at 4,000 characters, and a common word
 * matching thousands of lines costs a heap of 200 (topK.ts), not a sort of them all.
 */
const SHORTLIST = 200;
/**
 * Indexes kept, one per conversation, least recently used dropped first, bounded by their estimated
 * size rather than their number. A count of 16 made a bot busy in more channels than that rebuild an
 * index (and re-parse its files) on every message, while a few year-old channels (~1 MB of index
 * each beside their parsed files) cannot push memory past the budget. 16 MB for the indexes plus
 * SourceCache's 24 MB for the parsed files keep the ~40 MB the count bound allowed at most. A
 * 50-entry MEMORY.md's index counts ~27 KB (~11 KB of heap): ~600 such channels stay indexed.
 */
const INDEX_CACHE_BYTES = 16 * 1024 * 1024;

export function createRecall(opts: RecallOptions = {}): LexicalRecall {
  return createTunedRecall(DEFAULT_TUNING, opts);
}

/**
 * Recall with other scoring constants: the recall benches build it to compare settings (their own
 * composition root); the product always runs DEFAULT_TUNING through createRecall.
 */
export function createTunedRecall(tuning: RecallTuning, opts: RecallOptions = {}): LexicalRecall {
  const logger = opts.logger ?? silentLogger();
  const sources = new SourceCache(logger);
  /** Per conversation (its folders), the index and the key of the file versions it was built from. */
  const indexes = new LRUCache<string, { key: string; index: Index }>({
    maxSize: INDEX_CACHE_BYTES,
    sizeCalculation: (e) => indexBytes(e.index),
  });

  function indexFor(input: Pick<RecallInput, 'channelDirs' | 'workspaceDir'>): Index {
    const { files: list, key } = sources.listSources(input.channelDirs, input.workspaceDir);
    const where = `${input.channelDirs.join('\u0000')}\u0001${input.workspaceDir ?? ''}`;
    const hit = indexes.get(where);
    if (hit && hit.key === key) return hit.index;
    const cands: Candidate[] = [];
    for (const s of list) for (const c of sources.candidates(s)) cands.push(c);
    linkCondensationEntries(cands);
    const index = buildIndex(cands);
    indexes.set(where, { key, index });
    return index;
  }

  return {
    indexOf: indexFor,
    recall(input: RecallInput, dense?: DenseScorer): RecallResult {
      try {
        return score(indexFor(input), input, tuning, dense);
      } catch (err) {
        logger.error({ err }, 'recall failed; recalling nothing');
        return { text: '', items: [] };
      }
    },
    recallIn(index: Index, input: RecallInput, dense?: DenseScorer): RecallResult {
      try {
        return score(index, input, tuning, dense);
      } catch (err) {
        logger.error({ err }, 'recall failed; recalling nothing');
        return { text: '', items: [] };
      }
    },
  };
}

/**
 * A MEMORY.md entry the Secretary wrote from a condensation (`[from: condensation <file>, …]`)
 * carries that condensation's post link, so an answer resting on it can cite the pinned post even
 * when de-duplication keeps the MEMORY.md copy. Recomputed at every index build (the link appears
 * once the post is made; the candidates are cached per file).
 */
function linkCondensationEntries(cands: Candidate[]): void {
  const links = new Map<string, string>();
  for (const c of cands) if (c.kind === 'condensation' && c.link) links.set(c.file.slice(c.file.lastIndexOf('/') + 1), c.link);
  for (const c of cands) {
    if (c.kind !== 'memory') continue;
    const from = /\[from: condensation ([^,\]]+)/.exec(c.text)?.[1]?.trim();
    const link = from ? links.get(from) : undefined;
    if (link) c.link = link;
    else delete c.link;
  }
}

/**
 * An index's own memory, roughly: its term table, postings and per-candidate arrays. The candidates
 * themselves are SourceCache's (counted there).
 */
function indexBytes(index: Index): number {
  return 1024 + index.termIds.size * 80 + index.postIds.length * 6 + index.n * 48;
}

/** Candidates' terms are distinct per candidate (sources.ts), with their counts. */
function buildIndex(cands: Candidate[]): Index {
  const termIds = new Map<string, number>();
  const df: number[] = [];
  let total = 0;
  let postings = 0;
  for (const c of cands) {
    total += c.len;
    postings += c.terms.length;
    for (const t of c.terms) {
      const id = termIds.get(t);
      if (id === undefined) {
        termIds.set(t, df.length);
        df.push(1);
      } else df[id]++;
    }
  }
  const postStart = new Int32Array(df.length + 1);
  for (let t = 0; t < df.length; t++) postStart[t + 1] = postStart[t] + df[t];
  const next = postStart.slice(0, df.length);
  const postIds = new Int32Array(postings);
  const postTfs = new Uint16Array(postings);
  cands.forEach((c, id) => {
    for (let k = 0; k < c.terms.length; k++) {
      const at = next[termIds.get(c.terms[k])!]++;
      postIds[at] = id;
      // A block is at most 20,000 characters (sources.ts): no term occurs 65,535 times in it.
      postTfs[at] = Math.min(c.tfs[k], 0xffff);
    }
  });
  const n = cands.length;
  const avgdl = n ? total / n : 1;
  const lenNorm = new Float64Array(n);
  for (let i = 0; i < n; i++) lenNorm[i] = BM25_K1 * (1 - B + (B * cands[i].len) / avgdl);
  const scratch = {
    score: new Float64Array(n),
    evidence: new Float64Array(n),
    matched: new Uint16Array(n),
    mark: new Uint32Array(n),
    touched: new Int32Array(n),
    stamp: 0,
  };
  return { cands, n, avgdl, termIds, postStart, postIds, postTfs, sets: new Array(n), lenNorm, scratch };
}

function score(index: Index, input: RecallInput, P: RecallTuning, dense?: DenseScorer): RecallResult {
  if (!input.explain) return decide(index, input, P, dense);
  // Asked why (minutes recall --explain, /recall explain:true): the same decision, traced.
  const trace = newTrace();
  const result = decide(index, input, P, dense, trace);
  return { ...result, explain: buildExplanation(trace, index, P, input.query) };
}

function decide(index: Index, input: RecallInput, P: RecallTuning, dense?: DenseScorer, trace?: ScoreTrace): RecallResult {
  // Every silent return names its gate (RecallResult.silence): the turn's log line keeps it.
  const silent = (why: NonNullable<ScoreTrace['silence']>): RecallResult => {
    if (trace) trace.silence = why;
    return { text: '', items: [], silence: why };
  };
  if (index.n === 0) return silent('empty-channel');
  if (!input.query) return silent('empty-message');
  const budget = input.budgetChars ?? DEFAULT_BUDGET_CHARS;
  const maxItems = input.maxItems ?? (P.charsPerItem > 0 ? Math.max(DEFAULT_MAX_ITEMS, Math.round(budget / P.charsPerItem)) : DEFAULT_MAX_ITEMS);
  if (budget <= 0 || maxItems <= 0) return silent('empty-message');
  const terms = queryTokens(input.query.length > 20_000 ? input.query.slice(0, 20_000) : input.query);
  if (terms.length === 0) return silent('no-words');

  const { n, cands } = index;
  // Accumulate in the index's scratch arrays (recall is synchronous, so they are never shared).
  const { score: acc, evidence: ev, matched, mark, touched } = index.scratch;
  let nTouched = 0;
  let stamp = index.scratch.stamp;
  const rare = P.rareDfMax > 0 ? rareQueryStems(input.query.length > 2_000 ? input.query.slice(0, 2_000) : input.query) : undefined;
  let rareWord = false;
  const { postStart, postIds, postTfs } = index;
  for (const t of terms) {
    const tid = index.termIds.get(t);
    if (tid === undefined) {
      trace?.words.push({ word: t, lines: 0, evidence: 0, rare: false });
      continue;
    }
    const from = postStart[tid];
    const to = postStart[tid + 1];
    const df = to - from;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    let spec = Math.min(1, Math.log((Math.max(n, N_FLOOR) + 1) / (df + 0.5)) / SPEC_SCALE);
    // Language prior: a common word counts only part of its channel specificity; a word rare in the
    // language (a name, a product, a place) that occurs in the channel is topical however often the
    // channel uses it, so it keeps at least `rareFloor`.
    if (isWeakToken(t)) spec *= P.weakFactor;
    else if (t.length >= 3 || (t.length >= 2 && hasCjk(t))) spec = Math.max(spec, P.rareFloor);
    const rareHere = rare !== undefined && df <= P.rareDfMax && rare.has(t);
    if (rareHere) rareWord = true;
    if (trace) {
      trace.words.push({ word: t, lines: df, evidence: spec, rare: rareHere });
      if (rareHere) trace.rareWord ??= t;
    }
    stamp++;
    const k1p = idf * (BM25_K1 + 1);
    for (let k = from; k < to; k++) {
      const id = postIds[k];
      const f = postTfs[k];
      if (mark[id] === 0) touched[nTouched++] = id;
      acc[id] += (k1p * f) / (f + index.lenNorm[id]);
      ev[id] += spec;
      matched[id]++;
      mark[id] = stamp;
    }
  }
  index.scratch.stamp = stamp;

  const exclude = input.exclude && input.exclude.size ? new Set(Array.from(input.exclude, normalizeForExclude)) : undefined;
  const top = new TopK(SHORTLIST);
  let best = 0;
  // Session context: a HISTORY paragraph summarises one dated session; when it matches the message,
  // the dated entries of that day that match too move up (they are the session's facts).
  let dayBest: Map<number, number> | undefined;
  if (P.sessionBoost > 0) {
    for (let k = 0; k < nTouched; k++) {
      const c = cands[touched[k]];
      if (c.kind !== 'history' || c.day === undefined) continue;
      dayBest ??= new Map();
      if (acc[touched[k]] > (dayBest.get(c.day) ?? 0)) dayBest.set(c.day, acc[touched[k]]);
    }
  }
  for (let k = 0; k < nTouched; k++) {
    const id = touched[k];
    const c0 = cands[id];
    const sc = dayBest && c0.kind !== 'history' && c0.day !== undefined ? acc[id] + P.sessionBoost * (dayBest.get(c0.day) ?? 0) : acc[id];
    const e = ev[id];
    const m = matched[id];
    acc[id] = 0;
    ev[id] = 0;
    matched[id] = 0;
    mark[id] = 0;
    if (e < P.evidenceMin || m === 0) continue;
    const c = cands[id];
    if (exclude && exclude.has(c.norm)) continue;
    if (e > best) best = e;
    top.push(id, sc, e, m);
  }
  if (stamp > 1e9) index.scratch.stamp = 0;
  const gate = top.size > 0 && (best >= P.gateMin || (rareWord && best >= P.rareWordMin));
  const rareWordOnly = gate && best < P.gateMin;
  const tie = (x: number, y: number) => cands[x].rank - cands[y].rank || x - y;
  let ranked = top.sorted(tie);
  const view = dense?.(index);
  if (trace) Object.assign(trace, { best, gate, rareWordOnly, view });
  if (view) {
    const content = terms.some((t) => isContentWord(t));
    if (trace) trace.content = content;
    const fused = fuse({ index, lexical: ranked, lexicalGate: gate, rareWordOnly, view, content, exclude, tuning: P, tie });
    if (typeof fused === 'string') return silent(fused);
    ranked = fused;
  } else if (!gate) return silent('words-below-gate');
  // What an explanation calls it when the decision spoke and no line was left to inject.
  if (ranked.length === 0) return { text: '', items: [], silence: 'nothing-fits' };
  const packed = pack(index, ranked, budget, maxItems, trace?.taken);
  return packed.items.length ? packed : { ...packed, silence: 'nothing-fits' };
}

/**
 * A word that names something: not common in the language, not a bare number, 3+ letters (or CJK),
 * the length rareFloor's rule uses. Part of meaning's abstention (issue 23: meaning alone opens
 * recall only for a message with one), judged with its gates on the abstention bench, not a knob.
 */
function isContentWord(t: string): boolean {
  return !isWeakToken(t) && !/^\d+$/.test(t) && (t.length >= 3 || hasCjk(t));
}
