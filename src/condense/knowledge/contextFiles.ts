import { existsSync } from '../../memory/dataFiles';
import type { ChannelRef } from '../../memory/paths';
import type { ChannelStore } from '../../memory/store';
import type { ChannelTx } from '../../memory/channelTx';
import { archiveNeeded } from './contextRender';
import { composeContext, composeContextArchive } from './contextHandEdits';
import { ContextData, EMPTY_CONTEXT } from './contextData';

/**
 * The conversation's context.json, or an empty one when there is none yet. Strict: one that does
 * not parse or fit its schema is refused (MalformedStateError), because folding into an empty
 * context would leave CONTEXT.md with only the newest decision.
 */
export async function readContext(store: ChannelStore, ref: ChannelRef): Promise<ContextData> {
  return (await store.readState(store.paths(ref).contextData, ContextData, { strict: true })) ?? structuredClone(EMPTY_CONTEXT);
}

/**
 * Re-renders CONTEXT.md, and CONTEXT.archive.md once a list has outgrown CONTEXT.md, from
 * context.json going from `prev` to `next`, in the caller's exclusive section of the channel (`tx`).
 *
 * The archive is written first: when a list grows past its cut, its oldest lines leave CONTEXT.md
 * only after they are in the archive, so a crash between the two writes loses nothing (the audit
 * re-renders both). CONTEXT.md may then shrink a lot in one write (a channel upgraded with a year
 * of decisions), which the store's shrink guard would refuse: that shrink is allowed here because
 * every line that left is in the archive, and hand-written lines are kept under Notes.
 */
export async function writeContextFiles(tx: ChannelTx, prev: ContextData, next: ContextData): Promise<void> {
  const archived = archiveNeeded(next) || existsSync(tx.p.contextArchive);
  if (archived) await tx.update('CONTEXT.archive.md', (cur) => composeContextArchive(cur || null, prev, next), { template: false });
  await tx.update('CONTEXT.md', (cur) => composeContext(cur, prev, next), { allowShrink: archived });
}
