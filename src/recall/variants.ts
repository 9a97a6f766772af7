import type { Index } from './types';
import { isWeakToken } from './tokenize';

/**
 * Query words the channel never uses, matched to the channel words they probably mean: typos
 * ("educaton") and short forms of names ("Mel"). Part of recall's scoring (recall.ts).
 */
const LATIN_WORD = /^[a-z]+$/;
/** Shortest (stemmed) word matched by one edit: shorter words have too many real neighbours ("stock"/"stack"). */
const TYPO_MIN = 6;

/** Lowercased words written with a capital initial and lowercase rest (names, as people write them). */
function capitalised(query: string): Set<string> {
  return new Set(Array.from(query.matchAll(/\b[A-Z][a-z]{2,3}\b/g), (m) => m[0].toLowerCase()));
}

/**
 * The query's terms, each with weight 1, plus, for a Latin-script word the channel never uses (in a
 * body or a heading), the channel words it probably means, at `weight`: words one edit away
 * (substitution, insertion, deletion or transposition; same first letter, TYPO_MIN+ letters) and, for
 * a capitalised word of 3–4 letters (a name), up to three longer words it begins ("Mel" for "Melanie").
 */
export function withVariants(index: Index, terms: string[], query: string, weight: number): { t: string; w: number }[] {
  const out = terms.map((t) => ({ t, w: 1 }));
  const seen = new Set(terms);
  let names: Set<string> | undefined;
  for (const t of terms) {
    if (index.df.has(t) || index.head.has(t) || !LATIN_WORD.test(t) || t.length < 3) continue;
    const v = vocabulary(index);
    const found: string[] = [];
    if (t.length >= TYPO_MIN) {
      for (let len = t.length - 1; len <= t.length + 1; len++) {
        for (const cand of v.byLen.get(t[0] + len) ?? []) if (oneEditApart(t, cand)) found.push(cand);
      }
    } else if (t.length <= 4 && (names ??= capitalised(query)).has(t)) {
      for (const cand of v.byPrefix.get(t.slice(0, 3)) ?? []) {
        if (cand.length >= t.length + 2 && cand.startsWith(t) && !isWeakToken(cand)) found.push(cand);
      }
      if (found.length > 3) found.length = 0;
    }
    for (const f of found) {
      if (seen.has(f)) continue;
      seen.add(f);
      out.push({ t: f, w: weight });
    }
  }
  return out;
}

function vocabulary(index: Index): NonNullable<Index['vocab']> {
  if (index.vocab) return index.vocab;
  const byLen = new Map<string, string[]>();
  const byPrefix = new Map<string, string[]>();
  const add = (m: Map<string, string[]>, k: string, t: string): void => {
    const l = m.get(k);
    if (l) l.push(t);
    else m.set(k, [t]);
  };
  for (const t of index.df.keys()) {
    if (!LATIN_WORD.test(t)) continue;
    if (t.length >= 4) add(byLen, t[0] + t.length, t);
    if (t.length >= 5) add(byPrefix, t.slice(0, 3), t);
  }
  index.vocab = { byLen, byPrefix };
  return index.vocab;
}

/** Optimal-string-alignment distance is exactly 1 (a and b differ). */
function oneEditApart(a: string, b: string): boolean {
  if (a === b) return false;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a[i] === b[i]) i++;
  if (la === lb) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true; // substitution
    return i + 1 < la && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2); // transposition
  }
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}
