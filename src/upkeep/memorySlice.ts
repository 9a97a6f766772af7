import type { RecallService } from '../memory/hybridRecall';
import { MemoryLine, parseMemory } from '../memory/entries';
import { recallDirs, type ChannelPaths } from '../memory/paths';

/**
 * Which MEMORY.md entries consolidation shows the model: all of them while memory is small, and
 * beyond that a bounded slice — the entries recall ranks highest for the messages being consolidated
 * (words and meaning: what those messages could repeat, contradict or update) plus the newest
 * entries (what the conversation most likely builds on). A year-old channel then costs what a
 * week-old one does per run.
 *
 * What the slice cannot show, code still checks against all of memory: an add that repeats an
 * existing entry (same or near-same words) is skipped by applyMemoryOps. The residual risk: a new
 * message that contradicts an entry outside the slice — sharing no specific word and not close in
 * meaning — is added beside it instead of superseding it (both stay visible, dated; the audit and
 * people can supersede the old one).
 */
export const SLICE = {
  /** Up to this many current entries, all are shown (the old behaviour; ~6 KB of input). */
  showAllUpTo: 60,
  /** Entries recall picks for the new messages. */
  recalled: 40,
  /** The newest entries by provenance date, always shown. */
  newest: 10,
  /** Characters of recall budget for the slice (entries are ~120 characters). */
  budgetChars: 8_000,
};

export interface SliceResult {
  entries: MemoryLine[];
  /** Current entries in MEMORY.md, shown or not. */
  total: number;
}

export async function memorySlice(o: {
  memory: string;
  /** The text of the messages being consolidated. */
  query: string;
  recall?: RecallService;
  paths: ChannelPaths;
  root: string;
  now: Date;
}): Promise<SliceResult> {
  const current = parseMemory(o.memory).filter((l) => l.kind === 'entry' && !l.superseded);
  if (current.length <= SLICE.showAllUpTo) return { entries: current, total: current.length };
  const pick = new Set<MemoryLine>();
  if (o.recall) {
    const r = await o.recall.recall({
      ...recallDirs(o.paths, o.root),
      query: o.query,
      now: o.now,
      budgetChars: SLICE.budgetChars,
      maxItems: SLICE.recalled * 2,
    });
    const byRaw = new Map(current.map((l) => [l.raw.trim(), l]));
    for (const it of r.items) {
      if (it.file !== 'MEMORY.md') continue;
      const line = byRaw.get(it.text.trim());
      if (line && pick.size < SLICE.recalled) pick.add(line);
    }
  }
  // Newest by provenance date; an undated line counts by its place in the file (later = newer).
  const dated = current.map((l, i) => ({ l, key: `${l.date ?? ''}\u0000${String(i).padStart(9, '0')}` }));
  dated.sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
  for (const { l } of dated.slice(0, SLICE.newest)) pick.add(l);
  return { entries: current.filter((l) => pick.has(l)), total: current.length };
}
