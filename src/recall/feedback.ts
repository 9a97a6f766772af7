import type { Index } from './types';
import type { RecallTuning } from './tuning';

/**
 * Pseudo-relevance feedback: the terms that the best few candidates share (specific ones: seen in at
 * least two entries, in at most a tenth of them) are added to the query at a low weight. They only
 * re-rank candidates that already match the query; they are never evidence, so they admit nothing.
 */
export function feedback(index: Index, terms: string[], nTouched: number, P: RecallTuning): void {
  const { score: acc, mark, touched } = index.scratch;
  const k = P.prfDocs;
  const top: number[] = [];
  for (let i = 0; i < nTouched; i++) {
    const id = touched[i];
    if (top.length < k) {
      top.push(id);
      continue;
    }
    let worst = 0;
    for (let j = 1; j < k; j++) if (acc[top[j]] < acc[top[worst]]) worst = j;
    if (acc[id] > acc[top[worst]]) top[worst] = id;
  }
  const q = new Set(terms);
  const counts = new Map<string, number>();
  const maxDf = Math.max(2, index.n * 0.1);
  for (const id of top) {
    for (const t of index.cands[id].terms) {
      if (q.has(t)) continue;
      const df = index.df.get(t) ?? 0;
      if (df < 2 || df > maxDf) continue;
      counts.set(t, (counts.get(t) ?? 0) + 1);
    }
  }
  const n = index.n;
  const idfOf = (t: string): number => {
    const df = index.df.get(t)!;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  };
  const chosen = Array.from(counts.entries())
    .filter(([, c]) => c >= 2 || k === 1)
    .map(([t, c]) => ({ t, w: (P.prfWeight * c) / k, idf: idfOf(t) }))
    .sort((a, b) => b.w * b.idf - a.w * a.idf || (a.t < b.t ? -1 : 1))
    .slice(0, P.prfTerms);
  for (const { t, w, idf } of chosen) {
    const p = index.post.get(t)!;
    const k1p = w * idf * (P.k1 + 1);
    for (let j = 0; j < p.ids.length; j++) {
      const id = p.ids[j];
      if (mark[id] === 0) continue;
      const f = p.tfs[j];
      acc[id] += (k1p * f) / (f + index.lenNorm[id]);
    }
  }
}
