import { folderSignature } from '../memory/dataFiles';
import { folderLayout } from '../memory/layout';
import type { Unit } from './data';

/**
 * The audit re-reads and re-parses everything a channel holds (~100 ms for 300 condensations), too
 * slow to run on every view of the home page. Its result is kept per channel for as long as the
 * files it reads are unchanged: the signature is the name, size and mtime of every file in the
 * channel folder, its condensations and its `.minutes/` state. Writes by the bot are atomic
 * renames, so any change moves at least one of these.
 */
export async function unitSignature(u: Unit): Promise<string> {
  const own = folderLayout(u.dir);
  const dirs = [u.dir, own.condensations, own.stateDir, ...u.recallDirs.filter((d) => d !== u.dir)];
  return (await Promise.all(dirs.map(folderSignature))).join('\n');
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
