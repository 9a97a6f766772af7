import { formatSuperseded, newEntryId, normalizeForCompare, parseMemory, utcDate } from '../../memory/entries';
import type { ChannelRef } from '../../memory/paths';
import type { ChannelStore } from '../../memory/store';

/**
 * Marks MEMORY.md lines superseded by an entry that already exists (`~~[m-old] …~~ → [m-new]`).
 *
 * Why not applyMemoryOps: its `supersede` always writes a new entry with the given text, and it
 * refuses a text that is already in the file, so it cannot point a second replaced decision, or a
 * stale hand-written line, at the one entry that replaced them. Until memoryOps gains that form
 * (proposed in the report: `{ op: 'supersede', id, byId }`), this does it with the same formatters
 * (entries.ts), through the store's one write path, touching nothing but the target lines.
 */
export interface LineTarget {
  /** The entry id, when it has one. */
  id?: string;
  /** Else the entry's text as parsed (hand-written lines have no id). */
  text?: string;
}

export function pointSupersededPure(original: string, targets: LineTarget[], newId: string, now: Date): { text: string; marked: string[] } {
  const lines = parseMemory(original);
  const out = lines.map((l) => l.raw);
  const taken = new Set(lines.filter((l) => l.id).map((l) => l.id as string));
  const marked: string[] = [];
  for (const t of targets) {
    const line = lines.find(
      (l) =>
        l.kind === 'entry' &&
        !l.superseded &&
        l.id !== newId &&
        (t.id ? l.id === t.id : t.text !== undefined && normalizeForCompare(l.text) === normalizeForCompare(t.text)),
    );
    if (!line) continue;
    const id = line.id ?? newEntryId(taken);
    out[line.index] = formatSuperseded({ ...line, id }, newId, utcDate(now));
    marked.push(id);
  }
  return { text: marked.length ? out.join('\n') : original, marked };
}

export async function pointSuperseded(store: ChannelStore, ref: ChannelRef, targets: LineTarget[], newId: string, now: Date): Promise<string[]> {
  if (!targets.length) return [];
  let marked: string[] = [];
  await store.update(store.parentRef(ref), 'MEMORY.md', (cur) => {
    const r = pointSupersededPure(cur, targets, newId, now);
    marked = r.marked;
    return r.text;
  });
  return marked;
}

/** The id of the current entry with this text (added now, or earlier by a crashed run or a person). */
export function findEntryId(memory: string, text: string): string | undefined {
  const want = normalizeForCompare(text);
  return parseMemory(memory).find((l) => l.kind === 'entry' && !l.superseded && l.id && normalizeForCompare(l.text) === want)?.id;
}
