/**
 * The fakes' token estimate: one token per four characters, rounded up, per piece of text.
 * Real tokenizers differ, but every fake figure (usage, cache sizes, minimum cacheable length,
 * max_tokens cut-off) uses this one rule, so tests and benches compare like with like.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Characters that make up `tokens` tokens under estimateTokens. */
export function charsForTokens(tokens: number): number {
  return tokens * 4;
}
