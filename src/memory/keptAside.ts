import fs from 'node:fs/promises';
import path from 'node:path';
import { NAMES } from './layout';

/**
 * Copies of damaged files, kept beside them before anything replaces them: a state file that did
 * not parse (stateFile.ts) or the part of a conversation journal that could not be applied
 * (conversationJournal.ts) is rewritten from what could be read, and its old bytes stay here for a
 * person to look at. `minutes doctor` and the audit name every such copy (keptAsideIn below).
 *
 * The first copy is `<name>.unreadable`; a later, different damage of the same file goes to
 * `<name>.unreadable-2`, `-3`, …, so a second fault never overwrites the first one's bytes.
 */
export const KEPT_SUFFIX = '.unreadable';
const KEPT_NAME = /\.unreadable(?:-\d+)?$/;

/** Beyond this many copies of one file, the newest replaces the last slot (a file damaged anew on every start). */
const MAX_COPIES = 20;

export function isKeptAsideName(name: string): boolean {
  return KEPT_NAME.test(name);
}

/**
 * Keeps `bytes` (the file's damaged content) beside `file`, unless a copy with the same bytes is
 * already there; returns the copy's path. Throws what the file system throws: a caller that is
 * about to replace the file must not go ahead when the copy could not be made.
 */
export async function keepAside(file: string, bytes: Buffer): Promise<string> {
  let slot = `${file}${KEPT_SUFFIX}`;
  for (let n = 1; n <= MAX_COPIES; n++) {
    slot = n === 1 ? `${file}${KEPT_SUFFIX}` : `${file}${KEPT_SUFFIX}-${n}`;
    // Silent on purpose: no copy in this slot yet.
    const was = await fs.readFile(slot).catch(() => null);
    if (was?.equals(bytes)) return slot;
    if (!was) break;
  }
  await fs.writeFile(slot, bytes, { mode: 0o600 });
  return slot;
}

/**
 * The kept-aside copies in a channel's folders: its own, its `.minutes/`, and each thread's and the
 * thread's `.minutes/`; paths relative to `channelDir`, sorted. Read-only.
 */
export async function keptAsideIn(channelDir: string): Promise<string[]> {
  const dirs = [channelDir, path.join(channelDir, NAMES.state)];
  const threads = path.join(channelDir, NAMES.threads);
  // Silent on purpose: a missing folder has no threads.
  for (const t of await fs.readdir(threads).catch(() => [] as string[])) dirs.push(path.join(threads, t), path.join(threads, t, NAMES.state));
  const out: string[] = [];
  for (const d of dirs) {
    // Silent on purpose: a missing folder holds no copies.
    for (const n of await fs.readdir(d).catch(() => [] as string[])) if (isKeptAsideName(n)) out.push(path.relative(channelDir, path.join(d, n)));
  }
  return out.sort();
}

/**
 * Every kept-aside copy under the data root (`minutes doctor`), relative to it, sorted; the caches
 * are not searched. Read-only; a missing root has none.
 */
export async function keptAsideUnder(root: string): Promise<string[]> {
  // Silent on purpose: a missing data root holds no copies.
  const all = await fs.readdir(root, { recursive: true }).catch(() => [] as string[]);
  return all.filter((f) => isKeptAsideName(f) && f.split(path.sep)[0] !== NAMES.cache).sort();
}

/** The one-line fix printed with each kept copy. */
export const KEPT_ASIDE_FIX = 'a damaged file was rewritten from what could be read; compare this copy with it, recover what you need, then delete the copy';
