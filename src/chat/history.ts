import type { ChannelRef } from '../memory/paths';
import type { ChannelStore } from '../memory/store';
import { redactSecrets } from '../memory/secrets';

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
