import fs from 'node:fs/promises';
import path from 'node:path';
import { atomicWrite, readTextForWrite, readTextIfExists, replaceIfUnchanged } from './atomicWrite';

/**
 * The condensations folder as the Secretary writes it: one file per condensation, written once and
 * afterwards only marked superseded. The caller holds the channel's lock (store.exclusive).
 */

/** The `.md` files filed so far, sorted; the folder is created if missing. */
export async function filedCondensations(dir: string): Promise<string[]> {
  await fs.mkdir(dir, { recursive: true });
  return (await fs.readdir(dir)).filter((n) => n.endsWith('.md')).sort();
}

/** One filed condensation's text; null when it is gone. */
export function readCondensationFile(dir: string, name: string): Promise<string | null> {
  return readTextIfExists(path.join(dir, name));
}

export async function writeCondensationFile(dir: string, name: string, text: string): Promise<void> {
  await atomicWrite(path.join(dir, name), text);
}

/**
 * Rewrites one filed condensation with `change`. Strict: this file is written back, and a lenient
 * decode would destroy bytes a person put there. Compared again before the rename, like memory
 * files: a person may be editing an old record.
 */
export async function rewriteCondensationFile(dir: string, name: string, change: (text: string) => string): Promise<void> {
  const file = path.join(dir, name);
  for (let attempt = 0; attempt < 5; attempt++) {
    const cur = await readTextForWrite(file);
    if (cur === null) break;
    const next = change(cur);
    if (next === cur || (await replaceIfUnchanged(file, cur, next))) break;
  }
}
