/**
 * Scoring constants. The product runs DEFAULT_TUNING; the recall benches compare others through createTunedRecall. Each one earned
 * its place under leave-one-conversation-out on the LoCoMo dev set (bench/recall-loo.js) or on the
 * abstention bench (bench/recall-abstention.js); docs/benchmarks.md has each one's interval.
 */
export interface RecallTuning {
  /** Abstention: recall speaks only when its best line has this much evidence (one specific word gives at most 1). */
  gateMin: number;
  /**
   * Abstention: one word rare in the language (rareWords.ts) that the channel uses in at most rareDfMax
   * entries opens the gate when the best line has rareWordMin ("buildkite?"); 0 = off.
   */
  rareDfMax: number;
  rareWordMin: number;
  /** Once the gate is passed, other lines need only this much evidence (keeps one-common-word matches out). */
  evidenceMin: number;
  /** Abstention: a word common in the language (commonWords.ts) counts this share of its evidence. */
  weakFactor: number;
  /** A word not common in the language that the channel uses (a name, a product) keeps at least this evidence. */
  rareFloor: number;
  /** The item cap grows with the budget: one item per this many characters, at least DEFAULT_MAX_ITEMS. */
  charsPerItem: number;
  /** A HISTORY summary matching the message lifts that day's entries by this share of its score (a session's facts). */
  sessionBoost: number;
  /** Meaning (fusion.ts): its share of the fused score, 0–1. */
  denseWeight: number;
  /**
   * Paraphrases: meaning admits at most this many lines that share no evidence word with the message…
   * Why 50: judged under leave-one-conversation-out on the dev four (bench/recall-loo.js, rule
   * `denseCandidates`): off costs evidence recall; 20, 50 and 100 are within each other's intervals.
   */
  denseCandidates: number;
  /**
   * …and only those at least this similar to the message. Similarities here and below are in the
   * embedder's own units (calibration.ts): standard deviations of its cosines between unrelated
   * texts, above their mean, so they hold for any embedder. Why 0.39: the packaged model's cosine 0.4,
   * which leave-one-out kept against 0.35 and 0.45 (rule `denseAdmit*`), on that model's own scale.
   */
  denseAdmit: number;
  /**
   * Meaning alone never lets recall speak below this (Infinity: never). Why 0.27: the packaged
   * model's cosine 0.38, below which the abstention bench's chat lines were all that meaning found.
   */
  denseFloor: number;
  /**
   * …nor below what everyday chat reaches against the channel (DenseView.chatBar) plus this. Why 0.17:
   * the packaged model's 0.03, the margin that took the abstention bench's chat silence past 0.97.
   */
  chatBarMargin: number;
  /**
   * …nor when the message's best similarity with the channel is below its best with everyday chat
   * plus this. Why -0.29: the packaged model's -0.05, which took chat silence past 0.97.
   */
  chatMargin: number;
  /**
   * …nor below its best with a generic technical message (nullTech.ts) plus this: a question about
   * code, an error or a tool in general, closer to one of those than to any line, is not about the
   * channel ("regex to match an email address" in a young technical channel). Why -1.0: on the six
   * young technical channels (bench/recall-young.js) left out one at a time, the rule took off-topic
   * silence from 0.08 to 0.85 in every fold, for paraphrase recall 0.69 → 0.50 at the folds' own
   * pick (-0.6); -1.0 is the value that keeps the grown project channel's paraphrases at today's
   * figure (0.80 vs 0.82; -0.6 gives 0.68), off-topic silence 0.68 and paraphrases 0.60 there.
   */
  techMargin: number;
  /**
   * Words alone do not open recall for a message this much closer to everyday chat than to any line.
   * Why 1.15: the packaged model's 0.2, which withdrew one-common-word matches from everyday chat.
   */
  chatVeto: number;
  /**
   * …nor for one this much closer to a generic technical message than to any line (Infinity: never).
   * Why 1.5: picked in 4 of 6 leave-one-channel-out folds (with 1.0 in the others, which cost direct
   * questions 0.96); off-topic silence +0.04, direct and paraphrased questions unchanged.
   */
  techVeto: number;
}

export const DEFAULT_TUNING: RecallTuning = {
  gateMin: 1.15,
  evidenceMin: 0.3,
  rareDfMax: 3,
  rareWordMin: 0.7,
  weakFactor: 0.5,
  rareFloor: 0.75,
  charsPerItem: 125,
  sessionBoost: 1,
  denseWeight: 0.3,
  denseCandidates: 50,
  denseAdmit: 0.39,
  denseFloor: 0.27,
  chatBarMargin: 0.17,
  chatMargin: -0.29,
  techMargin: -1.0,
  chatVeto: 1.15,
  techVeto: 1.5,
};
