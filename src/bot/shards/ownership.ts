import type { Client } from 'discord.js';
import type { ChannelRef } from '../../memory/paths';

/** The shards this process runs and how many the bot has in all. */
export interface ShardSet {
  ids: readonly number[];
  count: number;
}

/**
 * Whether a guild is one of this process's: Discord routes a guild to shard `(id >> 22) % count`,
 * and only that shard receives its events, so only it may act on the guild's folder.
 */
export function ownsGuild(guildId: string, shardIds: readonly number[], shardCount: number): boolean {
  if (shardCount <= 1) return true;
  return shardIds.includes(shardOf(guildId, shardCount));
}

/** The shard Discord sends a guild's events to, among `shardCount`. */
export function shardOf(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

/**
 * Whether this process may work on a channel folder it found on disk. Local (console) folders
 * belong to no Discord shard: only an unsharded bot, the data root's one worker, keeps them.
 */
export function ownsRef(ref: ChannelRef, shards: ShardSet): boolean {
  if (ref.kind === 'local') return shards.count <= 1;
  return ownsGuild(ref.guildId, shards.ids, shards.count);
}

/**
 * From the client's options (discord.js fills them from the SHARDS/SHARD_COUNT the sharding
 * manager sets), never from the guild cache: while the gateway is down or READY's guilds are still
 * arriving the cache misses guilds that are ours, and the cache cannot say a folder is another's.
 */
export function shardsOf(client: Client): ShardSet {
  const { shards, shardCount } = client.options;
  if (!Array.isArray(shards) || typeof shardCount !== 'number') return { ids: [0], count: 1 };
  return { ids: shards, count: shardCount };
}
