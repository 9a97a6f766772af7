import type { RecallResult } from '../recall/types';
import type { Silence } from '../recall/explanation';

/**
 * What recall did for a turn, as its `reply` line in log.jsonl records it: the lines it injected,
 * or the one gate that kept it silent. The dashboard's recall health is read back from these lines
 * (dashboard/recallHealth.ts), so the log stays the one record and no other file is written.
 *
 * Compact on purpose (a busy channel writes one per reply): a MEMORY.md entry by its id, which the
 * dashboard looks up in MEMORY.md as it stands (an entry forgotten since is not shown again), any
 * other line by its first TEXT_CHARS characters. Built from what the scorer already returned; the
 * turn computes no explanation for it.
 */
export interface ReplyRecall {
  /** The injected lines, in the block's order; absent when recall injected nothing. */
  lines?: RecalledLine[];
  /** The gate that closed (the names `minutes recall --explain` uses); absent when it injected, or recall failed. */
  silence?: Silence;
}

export interface RecalledLine {
  /** As recall labels it: `MEMORY.md`, `condensations/<file>.md`, `threads/<id>/SESSION.md`, … */
  file: string;
  /** A MEMORY.md entry's id (`m-…`). */
  id?: string;
  /** Any other line's first characters. */
  text?: string;
}

/** Enough of a line to know it again on a dashboard row; ~one sentence of a memory line. */
export const TEXT_CHARS = 120;

/** `- [m-1a2b3c] …` or `- ~~[m-…`: an entry's id after its bullet (memory/grammar.ts's ENTRY_ID). */
const LEADING_ID = /^\s*(?:[-*+]\s+)?(?:~~)?\[(m-[a-z0-9]{4,32})\]/;

export function replyRecall(r: RecallResult): ReplyRecall {
  if (!r.items.length) return r.silence ? { silence: r.silence } : {};
  return {
    lines: r.items.map((i) => {
      const id = /(?:^|\/)MEMORY\.md$/.test(i.file) ? LEADING_ID.exec(i.text)?.[1] : undefined;
      return id ? { file: i.file, id } : { file: i.file, text: clip(i.text) };
    }),
  };
}

function clip(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > TEXT_CHARS ? `${t.slice(0, TEXT_CHARS - 1)}…` : t;
}
