import type { Scored } from './types';

/** The best `k` by score: a bounded min-heap, so a common word matching thousands of entries costs no full sort. */
export class TopK {
  private items: Scored[] = [];
  constructor(private readonly k: number) {}
  get size(): number {
    return this.items.length;
  }
  push(id: number, score: number, evidence: number, matched: number): void {
    const h = this.items;
    if (h.length >= this.k && score <= h[0].score) return;
    const item: Scored = { id, score, evidence, matched, lexical: score };
    if (h.length < this.k) {
      h.push(item);
      let i = h.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (h[p].score <= h[i].score) break;
        [h[p], h[i]] = [h[i], h[p]];
        i = p;
      }
      return;
    }
    h[0] = item;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && h[l].score < h[m].score) m = l;
      if (r < h.length && h[r].score < h[m].score) m = r;
      if (m === i) break;
      [h[m], h[i]] = [h[i], h[m]];
      i = m;
    }
  }
  sorted(tie: (a: number, b: number) => number): Scored[] {
    return this.items.slice().sort((a, b) => b.score - a.score || tie(a.id, b.id));
  }
}
