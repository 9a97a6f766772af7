import type { Candidate } from './sources';

/** Scoring constants: the product runs DEFAULT_TUNING; the recall benches compare others through createTunedRecall. */
export interface RecallTuning {
  /** BM25 parameters (Lucene defaults). */
  k1: number;
  b: number;
  /** A heading match counts this much of a body match (headings are shared by many entries). */
  headingWeight: number;
  /** Evidence: per-term specificity ln((max(N, nFloor)+1)/(df+0.5)) / specScale, capped at 1. */
  nFloor: number;
  specScale: number;
  /**
   * The message is about the channel's memory only when its best candidate has this much evidence
   * (a single specific word gives at most 1, so one word never suffices); otherwise recall abstains.
   */
  gateMin: number;
  /** Once the gate is passed, other candidates need only this much evidence. */
  evidenceMin: number;
  /** Recency: up to +recencyMax for an entry dated today, halving every recencyHalfLifeDays. */
  recencyMax: number;
  recencyHalfLifeDays: number;
  /** Evidence factor for words common in the language (commonWords.ts). */
  weakFactor: number;
  /** Least evidence of a word that is not common in the language and occurs in the channel. */
  rareFloor: number;
  /** Per-file weights on the ranking score (SESSION slightly up, HISTORY's long paragraphs down). */
  kindWeight: Record<Candidate['kind'], number>;
  /** Items scoring below this share of the best item are not injected. */
  minRelative: number;
  /**
   * Topic credit: a query word that is rare in the language and occurs in the channel (a person, a
   * product) but not in the best candidate adds this share of its evidence to the gate, when the best
   * candidate has at least bestMin itself. 0 = off.
   */
  topicCredit: number;
  bestMin: number;
  /** Ranking favours short entries by (avg length / length)^densityPow (they cost less of the budget). */
  densityPow: number;
  /**
   * A query word the channel never uses matches channel words one edit away (typos: "educaton") and,
   * when capitalised with 3–4 letters, words it begins (short forms of names: "Mel"), at this weight.
   * 0 = off.
   */
  fuzzyWeight: number;
  /** A dated entry gains this share of the best score of a HISTORY paragraph of the same day. 0 = off. */
  sessionBoost: number;
  /**
   * Pseudo-relevance feedback: expand with up to prfTerms specific terms shared by the prfDocs best
   * candidates, each at prfWeight × its share of those candidates; re-ranks only. 0 = off.
   */
  prfDocs: number;
  prfTerms: number;
  prfWeight: number;
  /** Default item cap proportional to the budget: one item per this many characters, at least DEFAULT_MAX_ITEMS (0 = fixed cap). */
  charsPerItem: number;
  /**
   * One word suffices when the channel uses it in at most rareDfMax entries and it is rare in the
   * language (rareWords.ts: "buildkite", "db-staging-3", "6543"): the best candidate then needs
   * only rareWordMin. rareDfMax 0 = off.
   */
  rareDfMax: number;
  rareWordMin: number;
  /** Meaning (fusion.ts): its share of the fused score, 0–1. */
  denseWeight: number;
  /** Meaning admits at most this many candidates that share no evidence word with the message. */
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
  k1: 1.2,
  b: 0.75,
  headingWeight: 0.35,
  nFloor: 100,
  specScale: 3.5,
  gateMin: 1.15,
  evidenceMin: 0.3,
  recencyMax: 0.1,
  recencyHalfLifeDays: 30,
  minRelative: 0,
  weakFactor: 0.5,
  rareFloor: 0.75,
  kindWeight: { session: 1.05, memory: 1, condensation: 1, workspace: 0.95, history: 0.9 },
  topicCredit: 1,
  bestMin: 0.5,
  charsPerItem: 125,
  densityPow: 0.2,
  fuzzyWeight: 0.6,
  sessionBoost: 0.6,
  prfDocs: 10,
  prfTerms: 8,
  prfWeight: 0.3,
  rareDfMax: 3,
  rareWordMin: 0.7,
  denseWeight: 0.3,
  denseCandidates: 50,
  denseAdmit: 0.4,
  denseFloor: 0.38,
  chatBarMargin: 0.03,
  chatMargin: -0.05,
  chatVeto: 0.2,
};
