/**
 * Scoring constants. The product runs DEFAULT_TUNING; the recall benches compare others through createTunedRecall. Each one earned
 * its place under leave-one-conversation-out on the LoCoMo dev set (bench/recall-loo.js) or on the
 * abstention bench (bench/recall-abstention.js); docs/benchmarks.md has each one's interval.
 *
 * "LOO" below: evidence recall held out on the dev four (conv-26, 30, 41, 42), each fold picking the
 * value on the other three, minus the rule switched off (or, marked *, minus the shipped value), with
 * a paired bootstrap 95 % interval, at 2,000 characters unless said (docs/benchmarks.md, "Recall rules
 * under leave-one-conversation-out", measured with meaning on).
 */
export interface RecallTuning {
  /**
   * Abstention: recall speaks only when its best line has this much evidence (one specific word gives
   * at most 1). Why 1.15: it is the abstention bar (one word never suffices; chat stays silent on the
   * abstention bench). LOO gateMin* (1.0, 1.3): +0.000 [+0.000, +0.000], every fold keeps 1.15; words
   * only, 1.0 would gain +0.003 [+0.000, +0.007], not taken for that reason.
   */
  gateMin: number;
  /**
   * Abstention: one word rare in the language (rareWords.ts) that the channel uses in at most rareDfMax
   * entries opens the gate when the best line has rareWordMin ("buildkite?"); 0 = off. Why 3 and 0.7:
   * the abstention bench; without the rule, paraphrased questions on the generated project channel
   * recall something 0.663 instead of 0.820 (issue 15's "buildkite", "db-staging-3", "6543" recalled
   * nothing). LOO (off; 3/0.7, 6/0.7, 3/0.5): +0.000 [+0.000, +0.000], LoCoMo's questions share words.
   */
  rareDfMax: number;
  rareWordMin: number;
  /**
   * Once the gate is passed, other lines need only this much evidence (keeps one-common-word matches
   * out). Why 0.3: LOO evidenceMin* (0.2, 0.45): +0.000 [+0.000, +0.000] (+0.001 [+0.000, +0.004] at
   * 1,000); lower values let in lines that share one common word with the question, about someone else.
   */
  evidenceMin: number;
  /**
   * Abstention: a word common in the language (commonWords.ts) counts this share of its evidence.
   * Why 0.5: it keeps one or two everyday words from opening recall on chat (abstention bench). LOO
   * (1, 0.75, 0.5, 0.3) prefers 1: +0.000 [+0.000, +0.000]; words only 0.5 costs −0.003 [−0.007, +0.000].
   */
  weakFactor: number;
  /**
   * A word not common in the language that the channel uses (a name, a product) keeps at least this
   * evidence. Why 0.75: LOO (0, 0.5, 0.75, 1) +0.018 [+0.007, +0.029], +0.025 [+0.013, +0.037] at
   * 4,000; folds pick 0.5, 0.75, 0.75, 0.75. Words only: +0.106 [+0.084, +0.127].
   */
  rareFloor: number;
  /**
   * The item cap grows with the budget: one item per this many characters, at least DEFAULT_MAX_ITEMS.
   * Why 125: LOO (0, 125, 250) +0.028 [+0.018, +0.039] at 4,000, every fold picks 125 (it does not act
   * at 2,000 characters or less, where the cap is DEFAULT_MAX_ITEMS).
   */
  charsPerItem: number;
  /**
   * A HISTORY summary matching the message lifts that day's entries by this share of its score (a
   * session's facts). Why 1: LOO (0, 0.3, 0.6, 1) +0.034 [+0.020, +0.050], every fold picks 1 (words
   * only +0.040 [+0.023, +0.056]).
   */
  sessionBoost: number;
  /**
   * Meaning (fusion.ts): its share of the fused score, 0–1. Why 0.3: LOO denseWeight* (0.2, 0.45):
   * every fold picks 0.45, for +0.003 [−0.005, +0.010]: the interval holds zero, so 0.3 (the value the
   * 2026-11-24 grid kept: 0.2, 0.4, 0.5 lower on the two-conversation dev set) stays.
   */
  denseWeight: number;
  /**
   * Paraphrases: meaning admits at most this many lines that share no evidence word with the message…
   * Why 50: for paraphrases on the abstention bench, which share no word with their line (0.80 of them
   * recall something on the generated project channel with meaning, 0.26 by words). LOO (0, 20, 50,
   * 100): +0.000 [+0.000, +0.000] (LoCoMo's questions share words with their evidence); 20, 50 and
   * 100 tie.
   */
  denseCandidates: number;
  /**
   * …and only those at least this similar to the message. Similarities here and below are in the
   * embedder's own units (calibration.ts): standard deviations of its cosines between unrelated
   * texts, above their mean, so they hold for any embedder. Why 0.39: the packaged model's cosine 0.4,
   * which leave-one-out kept against 0.35 and 0.45 (rule `denseAdmit*`, +0.000 [+0.000, +0.000], every
   * fold keeps 0.4), on that model's own scale.
   */
  denseAdmit: number;
  /**
   * Meaning alone never lets recall speak below this (Infinity: never). Why 0.27: the packaged
   * model's cosine 0.38, below which the abstention bench's chat lines were all that meaning found.
   * This and the next three were chosen together on the abstention bench (issue 23, docs/benchmarks.md
   * "Abstention per channel": floor 0.38–0.42, bar quantile 0.75/0.9/1.0, bar margin 0–0.03, chat margin
   * −0.05–0.06, veto 0.15–0.25; the best paraphrase share with every tuned chat set ≥ 0.975 silent),
   * and held out on 76 chat lines written before, a 400-line look-alike channel and conv-41/42: chat
   * silent 0.938–1.000 there. No LOO interval: they never touch a LoCoMo question's evidence (0.633 /
   * 0.676 / 0.705 with and without them).
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
   * …nor when it is this much closer to a generic technical message (nullTech.ts) than to any line,
   * compared on what sets texts apart (the null's mean and its COMMON_DIRECTIONS strongest directions
   * taken away, commonPart.ts; in that comparison's own standard deviations): a question about code,
   * an error or a tool in general is not about the channel ("regex to match an email address" in a
   * young technical channel). Why -1.0 (with 2 directions): on the six young technical channels
   * (bench/recall-young.js) left out one at a time, choosing the directions (raw cosines, the mean
   * only, 2 or 3), this margin (-1.5 to 0) and techVeto together, every fold picks 2 directions and
   * -1.0 in five of six (-0.6 in one). Held out, against the same procedure on raw cosines: off-topic
   * silence 0.850 → 0.866, direct 0.978 → 0.978, paraphrases 0.500 → 0.578; on the six channels
   * 0.718 → 0.854, 1.000, 0.600 → 0.611 (2026-11-29). The abstention bench and LoCoMo do not move.
   * The same test asks one rare word that opens recall alone whether meaning agrees (fusion.ts,
   * 'rare-word-tech'; no constant of its own): off-topic silence 0.854 → 0.899, higher on each of the
   * six channels and the example (0.930 → 0.958), direct 1.000, paraphrases 0.611 → 0.600 (one); the
   * abstention bench's "buildkite?" questions and LoCoMo unchanged.
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
