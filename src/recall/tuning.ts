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
  /** Paraphrases: meaning admits at most this many lines that share no evidence word with the message… */
  denseCandidates: number;
  /** …and only those at least this similar (cosine) to the message. */
  denseAdmit: number;
  /** Meaning alone never lets recall speak below this cosine (Infinity: never). */
  denseFloor: number;
  /** …nor below what everyday chat reaches against the channel (DenseView.chatBar) plus this. */
  chatBarMargin: number;
  /** …nor when the message's best cosine with the channel is below its cosine with everyday chat plus this. */
  chatMargin: number;
  /** Words alone do not open recall for a message this much closer to everyday chat than to any line. */
  chatVeto: number;
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
  denseAdmit: 0.4,
  denseFloor: 0.38,
  chatBarMargin: 0.03,
  chatMargin: -0.05,
  chatVeto: 0.2,
};
