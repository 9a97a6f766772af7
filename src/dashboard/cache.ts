import fs from 'node:fs/promises';
import path from 'node:path';
import type { Unit } from './data';

/**
 * The audit re-reads and re-parses everything a channel holds (~100 ms for 300 condensations), too
 * slow to run on every view of the home page. Its result is kept per channel for as long as the
 * files it reads are unchanged: the signature is the name, size and mtime of every file in the
 * channel folder, its condensations and its `.minutes/` state. Writes by the bot are atomic
 * renames, so any change moves at least one of these.
 */
async function statsOf(dir: string): Promise<string> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).sort();
  } catch {
    return `${dir}:-`;
  }
  const parts = await Promise.all(
    names.map(async (n) => {
      try {
        const s = await fs.stat(path.join(dir, n));
        return `${n}:${s.size}:${s.mtimeMs}`;
      } catch {
        return `${n}:?`;
      }
    }),
  );
  return `${dir}|${parts.join('|')}`;
}

export async function unitSignature(u: Unit): Promise<string> {
  const dirs = [u.dir, path.join(u.dir, 'condensations'), path.join(u.dir, '.minutes'), ...u.recallDirs.filter((d) => d !== u.dir)];
  return (await Promise.all(dirs.map(statsOf))).join('\n');
}

/** One value per key, recomputed when its signature changes. Per dashboard instance. */
export class SignedCache<T> {
  private readonly entries = new Map<string, { sig: string; value: T }>();

  async get(key: string, sig: string, compute: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.sig === sig) return hit.value;
    const value = await compute();
    this.entries.set(key, { sig, value });
    return value;
  }
}
