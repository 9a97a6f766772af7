import fsp from 'node:fs/promises';
import path from 'node:path';
import { guildDir } from './layout';
import { isSnowflake } from './paths';

/** A server's folder in a data root and how many bytes moving it copies. */
export interface ServerFolder {
  guild: string;
  bytes: number;
}

/**
 * The server folders of a data root (snowflake names only: `local/`, `workspace/` and the hidden
 * folders belong to no server), sorted by id, each with the size of everything under it. Read
 * only; a missing root has none.
 */
export async function serverFolders(root: string): Promise<ServerFolder[]> {
  // Silent on purpose: a missing data root is the empty case (the caller checks the root itself).
  const entries = await fsp.readdir(root, { withFileTypes: true }).catch(() => []);
  const ids = entries
    .filter((e) => e.isDirectory() && isSnowflake(e.name))
    .map((e) => e.name)
    .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
  return Promise.all(ids.map(async (guild) => ({ guild, bytes: await treeBytes(guildDir(root, guild)) })));
}

/** Bytes of every file under a folder; links count as themselves (a copy that keeps bytes keeps them as links). */
async function treeBytes(dir: string): Promise<number> {
  // Silent on purpose: a folder removed while we count has no bytes left to move.
  const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += await treeBytes(p);
    // Silent on purpose: as above, for a file.
    else total += (await fsp.lstat(p).catch(() => null))?.size ?? 0;
  }
  return total;
}
