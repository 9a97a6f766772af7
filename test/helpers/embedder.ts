import type { Embedder } from '../../src/embed/types';
import { normalize } from '../../src/embed/types';

/**
 * A deterministic small embedder for tests about fusion, caching and fallback (not about the model):
 * a bag of concepts. Each word (lower-cased, 3+ letters) is mapped through `concepts` (so "ship" and
 * "release" can mean "deploy"; '' drops the word) and hashed into one of `dims` dimensions; the vector is unit length.
 * Texts sharing concepts are close; texts sharing none are orthogonal (cosine 0).
 */
export function conceptVector(text: string, concepts: Record<string, string> = {}, dims = 64): Float32Array {
  const v = new Float32Array(dims);
  for (const raw of text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []) {
    const w = concepts[raw] ?? raw;
    if (w === '') continue; // a word mapped to '' carries no meaning
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
    v[(h >>> 0) % dims] += 1;
  }
  return normalize(v);
}

export interface TestEmbedder extends Embedder {
  /** Every batch asked for, in order. */
  calls: { texts: string[]; priority?: string }[];
}

export function conceptEmbedder(
  concepts: Record<string, string> = {},
  opts: { id?: string; dims?: number; fail?: boolean; hang?: boolean } = {},
): TestEmbedder {
  const calls: TestEmbedder['calls'] = [];
  return {
    id: opts.id ?? `concepts-test@${opts.dims ?? 64}`,
    calls,
    async embed(texts, o = {}) {
      calls.push({ texts, priority: o.priority });
      if (opts.fail) throw new Error('test embedder: model unavailable');
      if (opts.hang) return new Promise<Float32Array[]>(() => undefined);
      return texts.map((t) => conceptVector(t, concepts, opts.dims));
    },
    async close() {
      /* nothing to release */
    },
  };
}
