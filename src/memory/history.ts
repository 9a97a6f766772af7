import { readTextForWrite } from './atomicWrite';
import type { ChannelRef } from './paths';
import type { ChannelStore } from './store';
import { redactSecrets } from '../shared/secrets';

/**
 * HISTORY.md gets one dated block per boundary (compaction, /new, condensation, end of an active
 * day), never a per-turn worklog. Blocks are appended, oldest first.
 */
export interface HistoryBlock {
  at: Date;
  title: string;
  body: string;
}

export function renderHistoryBlock(b: HistoryBlock): string {
  return `## ${b.at.toISOString().slice(0, 10)} — ${b.title.replace(/\s+/g, ' ').trim()}\n\n${redactSecrets(b.body.trim())}\n`;
}

export async function appendHistoryBlock(store: ChannelStore, ref: ChannelRef, b: HistoryBlock): Promise<void> {
  const block = renderHistoryBlock(b);
  await store.update(store.parentRef(ref), 'HISTORY.md', (cur) => `${cur.replace(/\s*$/, '')}\n\n${block}`);
}

/** Past this size the oldest blocks move to HISTORY.archive.md. */
export const HISTORY_MAX_CHARS = 16_000;
/** Blocks kept in HISTORY.md after a fold: the recent narrative stays where recall reads it. */
export const HISTORY_KEEP_BLOCKS = 8;

interface Split {
  head: string;
  blocks: string[];
}

function splitBlocks(text: string): Split {
  const lines = text.split('\n');
  const starts: number[] = [];
  lines.forEach((l, i) => {
    if (/^## /.test(l)) starts.push(i);
  });
  if (!starts.length) return { head: text, blocks: [] };
  const head = lines.slice(0, starts[0]).join('\n');
  const blocks = starts.map((s, k) =>
    lines
      .slice(s, starts[k + 1] ?? lines.length)
      .join('\n')
      .replace(/\s+$/, ''),
  );
  return { head, blocks };
}

/**
 * Pure: when HISTORY.md is past its cap, the oldest blocks go verbatim to the archive and one
 * block in HISTORY.md says what moved and where. Nothing is summarized away, so nothing is lost.
 */
export function foldHistory(
  text: string,
  now: Date,
  maxChars = HISTORY_MAX_CHARS,
  keep = HISTORY_KEEP_BLOCKS,
): { history: string; archived: string; moved: string[]; summary: string } | null {
  if (text.length <= maxChars) return null;
  const { blocks } = splitBlocks(text);
  if (blocks.length <= keep) return null;
  const moved = blocks.slice(0, blocks.length - keep);
  const titles = moved.map((b) => b.split('\n')[0].replace(/^##\s*/, ''));
  const summary = [
    `## ${now.toISOString().slice(0, 10)} — Folded history (${moved.length} blocks)`,
    '',
    `${moved.length} older blocks, from "${titles[0]}" to "${titles[titles.length - 1]}", were moved verbatim to HISTORY.archive.md:`,
    ...titles.map((t) => `- ${t}`),
  ].join('\n');
  return { history: removeFolded(text, moved, summary), archived: moved.join('\n\n') + '\n', moved, summary };
}

/**
 * Takes exactly the archived blocks out of `text` (HISTORY.md as it is now, which may have
 * changed since the fold was computed) and puts the summary where the first of them was. A block
 * edited meanwhile no longer matches and stays: kept twice is better than lost.
 */
export function removeFolded(text: string, moved: string[], summary: string): string {
  const { head, blocks } = splitBlocks(text);
  const gone = new Set<number>();
  for (const m of moved) {
    const i = blocks.findIndex((b, k) => b === m && !gone.has(k));
    if (i >= 0) gone.add(i);
  }
  if (!gone.size) return text;
  const first = Math.min(...gone);
  const kept = blocks.flatMap((b, k) => (k === first ? [summary] : gone.has(k) ? [] : [b]));
  return [head.replace(/\s+$/, ''), ...kept].filter(Boolean).join('\n\n') + '\n';
}

/** Applies foldHistory through the store: archive first, so a crash between the two loses nothing. */
export async function foldHistoryIfLarge(store: ChannelStore, ref: ChannelRef, now: Date): Promise<boolean> {
  const p = store.paths(store.parentRef(ref));
  return store.exclusive(p, async (tx) => {
    // Strict: archiving a lenient decode would copy U+FFFD over bytes HISTORY.md still has.
    const current = (await readTextForWrite(p.history)) ?? '';
    const fold = foldHistory(current, now);
    if (!fold) return false;
    await tx.update('HISTORY.archive.md', (cur) => `${cur.replace(/\s*$/, '')}${cur.trim() ? '\n\n' : ''}${fold.archived}`, { template: false });
    // From the text on disk now: a block or line added while the archive was written stays.
    await tx.update('HISTORY.md', (cur) => removeFolded(cur, fold.moved, fold.summary), { allowShrink: true });
    return true;
  });
}
