import { queryTokens, tokenize } from './tokenize';

/**
 * Ranks a fixed list of texts by the specific words each shares with a query: a shared word counts
 * by how rare it is among the texts (BM25's idea without its length terms), so "payments-api",
 * shared by a few texts, outweighs "use", shared by half of them.
 *
 * Unlike recall, nothing is de-duplicated and nothing abstains: two statements of the same fact with
 * different values ("the timeout is 2 s", "... is 8 s") rank side by side. That is what a caller
 * looking for what a message repeats or contradicts needs (consolidation, the Secretary).
 */
export class WordRanker {
  private readonly terms: Set<string>[];
  private readonly df = new Map<string, number>();

  constructor(texts: string[]) {
    this.terms = texts.map((t) => new Set(tokenize(t)));
    for (const set of this.terms) for (const t of set) this.df.set(t, (this.df.get(t) ?? 0) + 1);
  }

  /** Indices of at most `k` texts sharing a word with `query`, best first (ties: lower index first). */
  top(query: string, k: number): number[] {
    const n = this.terms.length;
    const q = queryTokens(query)
      .filter((t) => this.df.has(t))
      .map((t) => ({ t, w: Math.log(1 + n / (this.df.get(t) as number)) }));
    if (!q.length || k <= 0) return [];
    const scored: { i: number; score: number }[] = [];
    this.terms.forEach((set, i) => {
      let score = 0;
      for (const { t, w } of q) if (set.has(t)) score += w;
      if (score > 0) scored.push({ i, score });
    });
    scored.sort((a, b) => b.score - a.score || a.i - b.i);
    return scored.slice(0, k).map((x) => x.i);
  }
}
