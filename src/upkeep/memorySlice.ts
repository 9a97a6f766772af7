import type { RecallService } from '../recall/service';
import { MemoryLine, parseMemory } from '../memory/entries';
import { recallDirs, type ChannelPaths } from '../memory/layout';
import { WordRanker } from '../recall/wordRank';

/**
 * Which MEMORY.md entries consolidation shows the model: all of them while memory is small, and
 * beyond that a bounded slice — for each message being consolidated, the entries sharing its most
 * specific words and those recall ranks highest for it (meaning too): what the message could
 * repeat, contradict or update — plus the newest entries (what the conversation most likely builds
 * on). The slice's size follows the batch, never the size of memory, so a year-old channel costs
 * what a month-old one does per run.
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
  /** Entries picked for the new messages: at least this many when memory holds them… */
  recalled: 40,
  /**
   * …and this many per message being consolidated: a batch is often 20–35 messages, and 40 lines
   * shared between them left most messages one line, so a fact stated twice was shown once and the
   * new statement was added beside the other (bench:lifetime --diagnose: 13 such runs in 60 days;
   * with 3 lines a message, none).
   */
  perMessage: 3,
  /** …up to this bound (a run reads at most 24,000 characters of messages, so a batch is bounded too). */
  recalledMax: 120,
  /** The newest entries by provenance date, always shown. */
  newest: 10,
  /**
   * Per message, its 6 best lines by shared words come first: a message changes one or two facts,
   * and those lines name them (with their near-duplicates). Then recall's lines by meaning (it is
   * asked for its 16 best lines of any file, since condensation and HISTORY.md lines often rank
   * first, and its MEMORY.md lines are kept), then more lines by words, taken round-robin across the
   * messages up to the bound above.
   */
  perMessageChars: 2_500,
  perMessageItems: 16,
  perMessageKeep: 6,
};

export interface SliceResult {
  entries: MemoryLine[];
  /** Current entries in MEMORY.md, shown or not. */
  total: number;
}

export async function memorySlice(o: {
  memory: string;
  /**
   * The messages being consolidated, one string each. Each is matched on its own: a batch
   * mentions many subjects, and the batch as one query ranks the lines that match many of its
   * words, not the line about the one subject a message changes.
   */
  queries: string[];
  recall?: RecallService;
  paths: ChannelPaths;
  root: string;
  now: Date;
}): Promise<SliceResult> {
  const current = parseMemory(o.memory).filter((l) => l.kind === 'entry' && !l.superseded);
  if (current.length <= SLICE.showAllUpTo) return { entries: current, total: current.length };
  const pick = new Set<MemoryLine>();
  const queries = o.queries.map((q) => q.replace(/^\[[^\]]*\]\s*/, '').trim()).filter(Boolean);
  // Per message: the entries sharing its most specific words (near-duplicates included: those are
  // what it may repeat or contradict), then what recall adds by meaning.
  const words = new WordRanker(current.map((l) => l.text));
  const byWords = queries.map((q) => words.top(q, SLICE.recalledMax).map((i) => current[i]));
  const byRecall = o.recall ? await recallPerMessage(o.recall, queries, current, o) : queries.map(() => []);
  const lists = queries.map((_, qi) => {
    const w = byWords[qi];
    return [...new Set([...w.slice(0, SLICE.perMessageKeep), ...byRecall[qi], ...w.slice(SLICE.perMessageKeep)])];
  });
  const longest = Math.max(0, ...lists.map((l) => l.length));
  // Round robin: every message's best line first, then every message's second, and so on.
  const bound = Math.min(SLICE.recalledMax, Math.max(SLICE.recalled, SLICE.perMessage * queries.length));
  for (let rank = 0; rank < longest && pick.size < bound; rank++) {
    for (const list of lists) {
      const line = list[rank];
      if (line && pick.size < bound) pick.add(line);
    }
  }
  // Newest by provenance date; an undated line counts by its place in the file (later = newer).
  const dated = current.map((l, i) => ({ l, key: `${l.date ?? ''}\u0000${String(i).padStart(9, '0')}` }));
  dated.sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
  for (const { l } of dated.slice(0, SLICE.newest)) pick.add(l);
  return { entries: current.filter((l) => pick.has(l)), total: current.length };
}

/** The MEMORY.md lines recall ranks best for each message (recall also reads the other files). */
async function recallPerMessage(
  recall: RecallService,
  queries: string[],
  current: MemoryLine[],
  o: { paths: ChannelPaths; root: string; now: Date },
): Promise<(MemoryLine | undefined)[][]> {
  const byRaw = new Map(current.map((l) => [l.raw.trim(), l]));
  // Together, so a sentence model embeds the queries as one batch.
  const results = await Promise.all(
    queries.map((query) =>
      recall.recall({ ...recallDirs(o.paths, o.root), query, now: o.now, budgetChars: SLICE.perMessageChars, maxItems: SLICE.perMessageItems }),
    ),
  );
  return results.map((r) =>
    r.items
      .filter((it) => it.file === 'MEMORY.md')
      .map((it) => byRaw.get(it.text.trim()))
      .filter((l) => l !== undefined)
      .slice(0, SLICE.perMessageKeep),
  );
}
