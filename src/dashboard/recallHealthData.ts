import path from 'node:path';
import type { RecalledLine } from '../chat/replyRecall';
import { readTail, readTextOrNull } from '../memory/dataFiles';
import { parseMemory } from '../memory/entries';
import { folderLayout, workspaceFiles } from '../memory/layout';
import { parsedJsonLines } from '../shared/jsonLines';
import { recallHealth, RecallHealth } from './recallHealth';

/**
 * Reading what the channel page's recall health needs: the end of the conversation's log.jsonl
 * and the MEMORY.md files its recorded entry ids point into. Through the store's read-only helpers.
 */

/**
 * The part of log.jsonl read: its last 2 MB. A bound on the page's work, not a fitted value: a
 * reply line with its recall is ~1–3 KB and a message line a few hundred bytes, so 2 MB holds
 * several hundred turns (more than 30 days of most channels), read and parsed in ~20 ms. A longer
 * log is cut at a line, and the page says from when its figures run.
 */
export const LOG_WINDOW_BYTES = 2 * 1024 * 1024;

/** A dashboard unit as far as this needs it: its folder (the log's) and the folders its recall reads. */
export interface Where {
  dir: string;
  recallDirs: string[];
}

export interface RecallHealthData {
  health: RecallHealth;
  /** How much of the log's end was read. */
  windowBytes: number;
  /** A recorded MEMORY.md line's text as the file holds it now (undefined when gone). */
  entry(line: RecalledLine): string | undefined;
}

/** The figures from the end of the conversation's log alone (a home card needs no more). */
export async function readRecallFigures(u: Pick<Where, 'dir'>, now: Date, windowBytes = LOG_WINDOW_BYTES): Promise<RecallHealth> {
  const tail = await readTail(folderLayout(u.dir).log, windowBytes);
  return recallHealth(tail ? parsedJsonLines(tail.text) : [], { now, cut: tail?.cut ?? false });
}

export async function readRecallHealth(root: string, u: Where, now: Date, windowBytes = LOG_WINDOW_BYTES): Promise<RecallHealthData> {
  const health = await readRecallFigures(u, now, windowBytes);
  const wanted = new Set<string>();
  for (const l of [...health.top, ...health.recent.flatMap((r) => r.lines)]) if (l.id) wanted.add(l.file);
  const files = memoryFiles(root, u);
  const entries = new Map<string, Map<string, string>>();
  for (const label of wanted) {
    // Only the MEMORY.md files this conversation's recall reads: a label in the log never names a path.
    const file = files.get(label);
    const text = file ? await readTextOrNull(file) : null;
    if (text === null) continue;
    const byId = new Map<string, string>();
    for (const m of parseMemory(text)) if (m.kind === 'entry' && m.id) byId.set(m.id, m.superseded ? `${m.text} (superseded)` : m.text);
    entries.set(label, byId);
  }
  return { health, windowBytes, entry: (l) => (l.id ? entries.get(l.file)?.get(l.id) : undefined) };
}

/**
 * The MEMORY.md files the unit's recall reads, by the label recall gives them (recall/sources.ts):
 * the channel's own `MEMORY.md`, a private thread's `threads/<id>/MEMORY.md`, the workspace's.
 */
function memoryFiles(root: string, u: Where): Map<string, string> {
  const base = u.recallDirs[u.recallDirs.length - 1] ?? u.dir;
  const out = new Map<string, string>([['workspace/MEMORY.md', workspaceFiles(root).memory]]);
  for (const dir of u.recallDirs) {
    const rel = path.relative(base, dir).split(path.sep).join('/');
    out.set(rel ? `${rel}/MEMORY.md` : 'MEMORY.md', folderLayout(dir).memory);
  }
  return out;
}
