import { packagedModelWords } from '../embed/vocabulary';
import { isWeakToken, tokenize } from './tokenize';

/**
 * Words that are evidence on their own: "buildkite", "db-staging-3", "6543". A message naming one
 * of them is about the few memory lines that use it, even with no second word in common.
 *
 * "Rare in the language" needs a larger list than commonWords.ts (634 words): the sentence
 * model's own vocabulary serves, its 8,000 word pieces being the commonest English words and parts
 * ("evening", "folks", "guitar" are in it; "buildkite", "terraform", "postgres", "staging" are not).
 * A word with a digit is always specific (without the list, only those count). Measured on the
 * abstention bench (docs/benchmarks.md). Five letters, or three with a digit: the rule as issue 15
 * shipped it, not tuned apart from rareDfMax / rareWordMin (tuning.ts). With only the 900-word common
 * list as "rare in the language", "evening folks" or "back!" recalled lines (chat silent on LoCoMo
 * 0.984 → 0.922, words only): that is why the model's vocabulary is the list.
 */
/** The stems of the message's words that are specific on their own (before any channel check). */
export function rareQueryStems(query: string): Set<string> {
  const out = new Set<string>();
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const w of words) {
    const digit = /\d/.test(w);
    if (w.length < (digit ? 3 : 5)) continue;
    if (!digit) {
      const v = packagedModelWords();
      if (!v || v.has(w)) continue;
    }
    const stems = tokenize(w);
    if (stems.length === 1 && !isWeakToken(stems[0])) out.add(stems[0]);
  }
  return out;
}
