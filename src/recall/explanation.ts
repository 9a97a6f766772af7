/**
 * Why recall injected what it did for one message, or why it stayed silent: the value the scorer
 * returns when asked (`RecallInput.explain`), rendered by `minutes recall --explain` and `/recall
 * explain:true` (explainText.ts). Every figure is one the decision itself used; similarities are in
 * the embedder's own units (calibration.ts: standard deviations above what unrelated texts score).
 * Shapes only, with no imports, so types.ts can carry it without importing the builder.
 */

/** The one gate that kept recall silent. */
export type Silence =
  /** The channel has no memory lines. */
  | 'empty-channel'
  /** The message is empty, or the budget or item cap is 0. */
  | 'empty-message'
  /** The message has no word recall scores (only small words, punctuation). */
  | 'no-words'
  /** Words did not reach the evidence gate and meaning was not used (off, or no vector in time). */
  | 'words-below-gate'
  /** Words did not open it; meaning may not open it alone for a message that names nothing. */
  | 'no-content-word'
  /** Words did not open it; the embedder's scale (the null's vectors) is not known yet. */
  | 'meaning-unscaled'
  /** Words did not open it; the message's best line is below meaning's floor. */
  | 'meaning-below-floor'
  /** Words did not open it; the message is closer to everyday chat than to the channel. */
  | 'closer-to-chat'
  /** Words did not open it; the message is closer to a generic technical message than to the channel. */
  | 'closer-to-tech'
  /** Words did not open it; the message does not beat what everyday chat scores against this channel. */
  | 'below-chat-bar'
  /** Words opened it, and were withdrawn: the message is far closer to everyday chat than to any line. */
  | 'chat-veto'
  /** Words opened it, and were withdrawn: far closer to a generic technical message than to any line. */
  | 'tech-veto'
  /**
   * One rare word alone opened it, and was withdrawn: meaning finds the message closer to a generic
   * technical message than to the channel (the test meaning alone must pass).
   */
  | 'rare-word-tech'
  /** Recall would have spoken, and no line was left (all already in the prompt, or over the budget). */
  | 'nothing-fits';

/** One word of the message as recall scored it. */
export interface WordExplanation {
  /** The word as recall matches it (lowercased, stemmed). */
  word: string;
  /** As the message wrote it (lowercased). */
  written: string;
  /** How many of the channel's lines use it (0: none does, so it counts nothing). */
  lines: number;
  /** Its evidence, 0–1: how specific it is to few lines of this channel. */
  evidence: number;
  /** A word common in the language (commonWords.ts): it counts `weakFactor` of its evidence. */
  common: boolean;
  /** Rare in the language and in at most `rareDfMax` lines: the one-rare-word gate applies. */
  rare: boolean;
}

/** The evidence gate (lexical.ts): words alone open recall when the best line has enough evidence. */
export interface GateExplanation {
  /** The best line's evidence (sum of its shared words' evidence). */
  best: number;
  gateMin: number;
  /** The rare word that lowered the bar to `rareWordMin`, if any (as the message wrote it). */
  rareWord?: string;
  rareWordMin: number;
  /** Other lines need this much once the gate is open. */
  evidenceMin: number;
  open: boolean;
}

/** Meaning against the channel and the null, in the embedder's units. */
export interface MeaningExplanation {
  /** The message's best similarity with a line of the channel (-Infinity: no line has a vector yet). */
  best: number;
  /** Its best with the shipped everyday chat lines, and with the shipped generic technical messages. */
  chat: number;
  tech: number;
  /**
   * How much closer the message is to a generic technical message than to the channel's best line,
   * compared without the null's common part (commonPart.ts), in that comparison's units.
   */
  techGap: number;
  /** What everyday chat reaches against this channel (its 90th percentile); undefined until known. */
  chatBar?: number;
  /** The message has a word that names something. */
  content: boolean;
  /** The embedder's scale: mean and standard deviation of unrelated texts' cosines. */
  mean: number;
  sd: number;
  /** The tuning that judged it (tuning.ts), in the same units. */
  floor: number;
  chatBarMargin: number;
  chatMargin: number;
  techMargin: number;
  chatVeto: number;
  techVeto: number;
  /** Lines meaning may add need at least this similarity. */
  admit: number;
}

/** One injected line and what brought it in. */
export interface ItemExplanation {
  file: string;
  text: string;
  /** 'words': it cleared the evidence bar; 'meaning': meaning alone added it (no evidence word). */
  by: 'words' | 'meaning';
  /** The message's words it shares. */
  words: string[];
  evidence: number;
  /** Its similarity with the message, in the embedder's units; absent without a vector. */
  meaning?: number;
}

export interface RecallExplanation {
  /** Undefined when recall injected something. */
  silence?: Silence;
  /** What opened recall when it spoke: words (the evidence gate, or one rare word), or meaning alone. */
  opened?: 'words' | 'rare-word' | 'meaning';
  words: WordExplanation[];
  gate: GateExplanation;
  /** 'used' with `meaning`; 'off' (words only) or 'unavailable' (no vector for the message in time). */
  semantic: 'used' | 'off' | 'unavailable';
  meaning?: MeaningExplanation;
  items: ItemExplanation[];
}
