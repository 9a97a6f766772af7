import type { Candidate } from './sources';
import type { RecallExplanation, Silence } from './explanation';

/**
 * The shapes recall's parts share: what a caller asks and gets back, the index, a scored candidate.
 * Kept apart from the engine (lexical.ts) so the parts it calls import these, not the engine.
 */
export interface RecallItem {
  file: string;
  heading: string;
  text: string;
  /** The ranking score (fused when meaning took part). */
  score: number;
  /** The lexical score alone (0 when only meaning found the entry). */
  lexical: number;
  /** Cosine similarity with the message; absent when the entry had no vector (yet) or meaning was off. */
  semantic?: number;
  /**
   * The same similarity in the embedder's own units (calibration.ts: standard deviations above what
   * unrelated texts score), which thresholds compare; absent with `semantic`, or before the scale is known.
   */
  meaning?: number;
  /** For a condensation line: the pinned post it came from. */
  link?: string;
}

export interface RecallResult {
  /** The block body as injected; '' when recall abstains. */
  text: string;
  items: RecallItem[];
  /**
   * When it abstained, the one gate that closed (the name `explain` gives it); computed by the
   * decision itself, so a turn pays nothing for it. Absent when it injected, or when recall failed.
   */
  silence?: Silence;
  /** Why it injected these lines or stayed silent; only when the input asked (`explain`). */
  explain?: RecallExplanation;
}

export interface RecallInput {
  /** The thread's own folder first, then its parent channel's. */
  channelDirs: string[];
  workspaceDir?: string;
  query: string;
  /** When the message was sent (recall does not rank by date: recency earned nothing under leave-one-out). */
  now?: Date;
  budgetChars?: number;
  maxItems?: number;
  /** Texts already in the prompt (e.g. CONTEXT.md lines); matched whitespace- and bullet-insensitively. */
  exclude?: Set<string>;
  /**
   * The longest to wait for the query's vector (meaning); the service's own bound by default. A
   * person asking `/recall` waits longer than a reply may, so a busy machine does not turn the
   * answer into words only.
   */
  queryWaitMs?: number;
  /**
   * Return why (RecallResult.explain): a person asking (`minutes recall --explain`, `/recall
   * explain:true`). Never set on a turn: the decision is the same, traced.
   */
  explain?: boolean;
}

export interface Index {
  cands: Candidate[];
  n: number;
  avgdl: number;
  /**
   * Each distinct body term's number t: its postings (candidate ids, ascending, and term counts) are
   * postIds / postTfs[postStart[t] .. postStart[t + 1]), so its document frequency is the span's
   * length. Flat typed arrays, not an object of two arrays per term: a 50-line MEMORY.md's index
   * took ~76 KB that way, and a bot in 2,000 channels keeps an index per channel.
   */
  termIds: Map<string, number>;
  postStart: Int32Array;
  postIds: Int32Array;
  postTfs: Uint16Array;
  /** Heading-word postings, made by the first search (recall itself does not score headings). */
  head?: Map<string, number[]>;
  /** Distinct terms per candidate, for de-duplication. */
  sets: (Set<string> | undefined)[];
  /** BM25 length normalisation per candidate: k1 * (1 - b + b * dl / avgdl). */
  lenNorm: Float64Array;
  scratch: { score: Float64Array; evidence: Float64Array; matched: Uint16Array; mark: Uint32Array; touched: Int32Array; stamp: number };
}

export interface Scored {
  id: number;
  score: number;
  evidence: number;
  /** Query terms matched in the body. */
  matched: number;
  /** The lexical ranking score (before fusion). */
  lexical: number;
  /** Cosine with the message, when the candidate has a vector. */
  semantic?: number;
}
