import { auditChannel } from '../condense/audit/audit';
import { peekJsonlQueue } from '../memory/jsonlQueue';
import { folderLayout } from '../memory/layout';
import type { ChannelStore } from '../memory/store';
import type { Unit } from './data';

/**
 * What the audit flags for a channel, in a line each, for its home card. The audit runs with
 * fix:false (it only reads); a failure is a flag too, so the page still renders.
 */
export async function auditFlags(store: ChannelStore, u: Unit, now: Date): Promise<string[]> {
  const f: string[] = [];
  try {
    const a = await auditChannel({ store, ref: u.ref, fix: false, now });
    if (a.context) f.push(`CONTEXT.md stale: ${a.context}`);
    if (a.unfolded.length) f.push(`${a.unfolded.length} condensation(s) not folded in`);
    if (a.malformed.length) f.push(`${a.malformed.length} condensation(s) with malformed front matter (not read)`);
    if (a.missing.length) f.push(`${a.missing.length} decision(s) in force whose condensation file is missing (minutes audit names them)`);
    if (a.staleLines.length) f.push(`${a.staleLines.length} line(s) restate superseded decisions`);
    const waiting = await queuedThreads(u.dir);
    if (waiting) f.push(`${waiting} resolved thread(s) never condensed (found by the bot's audit; its sweep condenses them)`);
  } catch (err) {
    f.push(`audit failed: ${(err as Error).message}`);
  }
  return f;
}

/** Threads the bot's audit queued as resolved without a condensation (the dashboard has no Discord access of its own). */
async function queuedThreads(channelDir: string): Promise<number> {
  const ids = new Set<string>();
  for (const r of await peekJsonlQueue(folderLayout(channelDir).condenseQueue))
    if (r && typeof (r as { threadId?: unknown }).threadId === 'string') ids.add((r as { threadId: string }).threadId);
  return ids.size;
}
