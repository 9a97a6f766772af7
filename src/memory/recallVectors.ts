import fs from 'node:fs';
import path from 'node:path';
import { stem } from './tokenize';

/** Static word vectors keyed by recall's stems (prototype loader). */
export interface WordVectors {
  dim: number;
  vector(term: string): Float32Array | undefined;
}

let cached: WordVectors | null | undefined;

export function loadWordVectors(): WordVectors | undefined {
  if (cached !== undefined) return cached ?? undefined;
  const dir = process.env.MINUTES_RECALL_VECTORS_DIR;
  if (!dir) return (cached = null) ?? undefined;
  const limit = Number(process.env.MINUTES_RECALL_VECTORS_LIMIT ?? 1e9);
  const words = fs.readFileSync(path.join(dir, 'words.txt'), 'utf8').split('\n');
  const raw = fs.readFileSync(path.join(dir, 'vecs.f32'));
  const all = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
  const dim = 100;
  const map = new Map<string, Float32Array>();
  const n = Math.min(limit, words.length);
  for (let i = 0; i < n; i++) {
    const s = stem(words[i]);
    let v = map.get(s);
    if (!v) map.set(s, (v = new Float32Array(dim)));
    let norm = 0;
    for (let d = 0; d < dim; d++) norm += all[i * dim + d] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < dim; d++) v[d] += all[i * dim + d] / norm;
  }
  for (const v of map.values()) {
    let norm = 0;
    for (let d = 0; d < dim; d++) norm += v[d] * v[d];
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < dim; d++) v[d] /= norm;
  }
  cached = { dim, vector: (t) => map.get(t), keys: () => map.keys() } as WordVectors;
  return cached;
}

const gcache = new Map<string, { t: string; c: number }[]>();
let gmat: { words: string[]; mat: Float32Array } | undefined;
/** Experiment: neighbours of t over the whole vector vocabulary (top n, cosine >= min). */
export function globalNear(t: string, n: number, min: number): { t: string; c: number }[] {
  const hit = gcache.get(t);
  if (hit) return hit;
  const v = loadWordVectors();
  const q = v?.vector(t);
  if (!v || !q) return [];
  if (!gmat) {
    const words = Array.from((v as unknown as { keys(): Iterable<string> }).keys());
    const mat = new Float32Array(words.length * v.dim);
    words.forEach((w, i) => mat.set(v.vector(w)!, i * v.dim));
    gmat = { words, mat };
  }
  const out: { t: string; c: number }[] = [];
  const { words, mat } = gmat;
  for (let r = 0; r < words.length; r++) {
    let dot = 0;
    for (let d = 0; d < 100; d++) dot += q[d] * mat[r * 100 + d];
    if (dot >= min && words[r] !== t) out.push({ t: words[r], c: dot });
  }
  out.sort((a, b) => b.c - a.c);
  if (out.length > n) out.length = n;
  gcache.set(t, out);
  return out;
}
