import { WordRanker } from '../../recall/wordRank';

/**
 * Which current decisions and active constraints the Secretary's request shows the model. While a
 * channel is young, all of them; past a threshold, a bounded slice: the ones that share the most
 * specific words with the discussion (what it could replace or has to respect) plus the newest
 * (what it most likely builds on). Without this, every condensation request of a year-old channel
 * would carry its whole decision log, and cost grows with age (bench/lifetime.js measures it).
 *
 * The model can only supersede ids it was shown (cleanDraft drops the rest), so the residual risk is
 * a discussion that replaces an old decision without sharing one specific word with it: it is filed
 * beside the old one instead of replacing it. `minutes audit` and people can supersede the old one.
 */
export interface SliceLimits {
  /** Up to this many, all are shown. */
  showAllUpTo: number;
  /** Beyond that: this many picked by shared words... */
  relevant: number;
  /** ...plus this many of the newest. */
  newest: number;
}

/**
 * At most 20 decisions (~3 KB): about what a month-old busy channel has in force, so a year-old
 * channel's request is the size of a month-old one's. 12 by shared words is plenty: a discussion
 * that replaces a decision names its subject, and that subject's decisions rank first.
 */
export const DECISION_SLICE: SliceLimits = { showAllUpTo: 20, relevant: 12, newest: 8 };
/**
 * Constraints are shown so the model does not restate one as new; the ones a discussion could
 * restate share its words, so 10 (~600 characters) are enough.
 */
export const CONSTRAINT_SLICE: SliceLimits = { showAllUpTo: 10, relevant: 6, newest: 4 };

/** Open questions are shown so the model can say which it answered: those it shares words with, and the newest. */
export const QUESTION_SLICE: SliceLimits = { showAllUpTo: 20, relevant: 12, newest: 8 };
/** Playbooks are shown so a changed procedure updates its playbook rather than filing a second one. */
export const PLAYBOOK_SLICE: SliceLimits = { showAllUpTo: 10, relevant: 6, newest: 4 };

/** The slice of `items` (given newest first) for `query`, in their original order. */
export function sliceFor<T>(items: T[], textOf: (item: T) => string, query: string, limits: SliceLimits): T[] {
  if (items.length <= limits.showAllUpTo) return items;
  const pick = new Set<number>(new WordRanker(items.map(textOf)).top(query, limits.relevant));
  for (let i = 0; i < Math.min(limits.newest, items.length); i++) pick.add(i);
  return items.filter((_, i) => pick.has(i));
}
