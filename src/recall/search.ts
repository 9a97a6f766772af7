import { Calibration, cosineAt, meaningOf } from './calibration';
import type { Index, RecallItem } from './types';
import { BM25_K1 } from './lexical';
import { queryTokens } from './tokenize';
import { DEFAULT_TUNING } from './tuning';

/**
 * An explicit search over a channel's memory: what a person asked for, ranked, never withheld.
 * Injection (lexical.ts) may abstain, because a recall that speaks on every "thanks!" costs every
 * prompt; a person who searches for "kafka" wants the lines about Kafka even when one common word
 * would never open recall. So there is no evidence gate here: every line that shares a query word
 * (BM25 over the line, its heading at a third) or a meaning (cosine at or above `MIN_COSINE`) is a
 * match, best first, the two scores fused as recall fuses them. Superseded lines are not candidates.
 */
export interface SearchInput {
  query: string;
  /** At most this many matches (default 10). */
  limit?: number;
}

/** Cosine per candidate (NaN without a vector) and the embedder's scale, when meaning is on and calibrated. */
export type SearchCosines = { cos: Float32Array; calibration: Calibration } | undefined;

/** What a person reads at a glance; `limit` takes up to 100 (a bound on the answer, not fitted). */
export const DEFAULT_SEARCH_LIMIT = 10;
/**
 * A line found by meaning alone must be at least this close to the query, in the embedder's own
 * units (calibration.ts). Lower than recall's floor: a person reads the list and judges it; an
 * unrelated line at the bottom costs a glance. Why -0.19: the packaged model's cosine 0.3 on its scale
 * (issue 23 §2: 'kafka' and 'MySQL' on a 401-line channel listed their lines; not judged by LOO, a
 * search is read by a person and never injected).
 */
const MIN_MEANING = -0.19;
/** Meaning's share of the fused score, as in recall. */
const DENSE_WEIGHT = DEFAULT_TUNING.denseWeight;
/**
 * A heading word counts this share of a word in the line. Recall itself no longer scores headings
 * (LOO: headingWeight 0, 0.2, 0.35, 0.7 held out +0.000 [+0.000, +0.000], removed); a person searching
 * for a topic's name still finds the lines under it. 0.35: recall's value when it had the field.
 */
const HEADING_WEIGHT = 0.35;

export function searchIndex(index: Index, input: SearchInput, dense: SearchCosines): RecallItem[] {
  const cos = dense?.cos;
  const minCos = dense ? cosineAt(dense.calibration, MIN_MEANING) : Infinity;
  const limit = Math.max(1, Math.min(100, input.limit ?? DEFAULT_SEARCH_LIMIT));
  if (index.n === 0 || !input.query.trim()) return [];
  const lexical = new Float64Array(index.n);
  const terms = queryTokens(input.query.length > 2_000 ? input.query.slice(0, 2_000) : input.query);
  const head = headingPostings(index);
  for (const t of new Set(terms)) {
    const tid = index.termIds.get(t);
    const hd = head.get(t);
    if (tid !== undefined) {
      const from = index.postStart[tid];
      const to = index.postStart[tid + 1];
      const idf = Math.log(1 + (index.n - (to - from) + 0.5) / (to - from + 0.5));
      for (let k = from; k < to; k++) {
        const id = index.postIds[k];
        const f = index.postTfs[k];
        lexical[id] += (idf * (BM25_K1 + 1) * f) / (f + index.lenNorm[id]);
      }
    }
    if (hd) {
      const hidf = HEADING_WEIGHT * Math.log(1 + (index.n - hd.length + 0.5) / (hd.length + 0.5));
      for (const id of hd) lexical[id] += hidf;
    }
  }
  let lexMax = 0;
  let lo = Infinity;
  let hi = -Infinity;
  const pool: number[] = [];
  for (let id = 0; id < index.n; id++) {
    const c = cos ? cos[id] : NaN;
    const byMeaning = !Number.isNaN(c) && c >= minCos;
    if (lexical[id] <= 0 && !byMeaning) continue;
    pool.push(id);
    if (lexical[id] > lexMax) lexMax = lexical[id];
    if (!Number.isNaN(c)) {
      if (c < lo) lo = c;
      if (c > hi) hi = c;
    }
  }
  const span = hi - lo;
  const scored = pool.map((id) => {
    const lex = lexMax > 0 ? lexical[id] / lexMax : 0;
    const c = cos ? cos[id] : NaN;
    const score = Number.isNaN(c) ? lex : (1 - DENSE_WEIGHT) * lex + DENSE_WEIGHT * (span > 1e-9 ? (c - lo) / span : 1);
    return { id, score, lexical: lexical[id], semantic: Number.isNaN(c) ? undefined : c };
  });
  scored.sort((a, b) => b.score - a.score || index.cands[a.id].rank - index.cands[b.id].rank || a.id - b.id);
  const seen = new Set<string>();
  const out: RecallItem[] = [];
  for (const s of scored) {
    const c = index.cands[s.id];
    // The same line in two files (a thread's SESSION.md quoting MEMORY.md) is listed once.
    if (seen.has(c.norm)) continue;
    seen.add(c.norm);
    out.push({
      file: c.file,
      heading: c.heading,
      text: c.text,
      score: round(s.score),
      lexical: round(s.lexical),
      ...(s.semantic !== undefined ? { semantic: round(s.semantic), meaning: round(meaningOf(dense!.calibration, s.semantic)) } : {}),
      ...(c.link ? { link: c.link } : {}),
    });
    if (out.length >= limit) break;
  }
  return out;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** Which candidates each heading word is under, made once per index (searches are rare; turns never need it). */
function headingPostings(index: Index): Map<string, number[]> {
  if (index.head) return index.head;
  const head = new Map<string, number[]>();
  index.cands.forEach((c, id) => {
    for (const t of c.headingTerms) {
      let h = head.get(t);
      if (!h) head.set(t, (h = []));
      h.push(id);
    }
  });
  index.head = head;
  return head;
}
