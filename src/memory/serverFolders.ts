import fsp from 'node:fs/promises';
import path from 'node:path';
import { listFolders } from './dataFiles';
import { listServerIds } from './dataRootIndex';
import { channelPaths, guildDir } from './layout';
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
  // A missing data root is the empty case (the caller checks the root itself).
  const ids = (await listServerIds(root)).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
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

/** A channel's or thread's folder under a server, by ids. */
export interface ConversationFolder {
  channelId: string;
  threadId?: string;
}

/**
 * The conversations a server's folder holds (each channel, and each thread with a folder of its
 * own), by id only: what Discord says of each (private or not, still there) is asked of Discord.
 */
export async function conversationFolders(root: string, guild: string): Promise<ConversationFolder[]> {
  const out: ConversationFolder[] = [];
  for (const channelId of await listFolders(guildDir(root, guild))) {
    if (!isSnowflake(channelId)) continue;
    out.push({ channelId });
    const threads = channelPaths(root, { kind: 'discord', guildId: guild, channelId }).threads;
    for (const threadId of await listFolders(threads)) if (isSnowflake(threadId)) out.push({ channelId, threadId });
  }
  return out;
}
