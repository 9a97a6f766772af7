import type { ServerFolder } from '../../memory/serverFolders';
import type { ShardLayout } from '../../memory/shardLayout';
import { shardOf } from './ownership';

/**
 * Planning a bot's shards over several hosts, from what the data roots hold: pure functions (the
 * folders are read by memory/serverFolders.ts), so `minutes shards plan` and `check` only print
 * what these return.
 */

export interface HostPlan {
  host: number;
  shards: number[];
  /** Every server folder found (in any data root) whose server lands on this host's shards. */
  guilds: string[];
}

/** A server folder that is not on the host that will serve it: copy it from `from`'s data root to `to`'s. */
export interface FolderMove {
  guild: string;
  from: number;
  to: number;
  bytes: number;
}

export interface ShardPlan {
  total: number;
  hosts: HostPlan[];
  moves: FolderMove[];
}

/**
 * Host h of `hosts` runs shards ⌊h·total/hosts⌋ … ⌊(h+1)·total/hosts⌋−1: each host one contiguous
 * range (one `--shards a-b` each), sizes differing by one at most. Needs 1 ≤ hosts ≤ total.
 */
export function splitShards(total: number, hosts: number): number[][] {
  if (!(Number.isInteger(total) && Number.isInteger(hosts) && hosts >= 1 && hosts <= total)) {
    throw new RangeError(`cannot split ${total} shards over ${hosts} hosts: each host needs at least one shard`);
  }
  return Array.from({ length: hosts }, (_, h) => {
    const from = Math.floor((h * total) / hosts);
    const to = Math.floor(((h + 1) * total) / hosts);
    return Array.from({ length: to - from }, (_, i) => from + i);
  });
}

/** One of today's data roots: its server folders, and the layout it recorded, if any. */
export interface DataRootToday {
  folders: readonly ServerFolder[];
  layout?: ShardLayout | null;
}

/**
 * The plan for `total` shards over `hosts` hosts, given today's data roots: `today[i]` is the data
 * root that is (or becomes) host i's. A server is served by the host running its shard,
 * `(id >> 22) % total`. Its live folder is the one in the data root whose recorded layout runs it
 * today (another copy is a leftover of an earlier move); without one, any copy is taken as live.
 * The folder moves when the new host does not hold the live one: from the live copy's host (the
 * first holder when none is known live). A data root beyond the new host count gives up all of its
 * folders.
 */
export function planShards(o: { total: number; hosts: number; today: readonly DataRootToday[] }): ShardPlan {
  const split = splitShards(o.total, o.hosts);
  const hostOfShard = new Map<number, number>();
  split.forEach((shards, host) => shards.forEach((s) => hostOfShard.set(s, host)));
  const holders = new Map<string, { host: number; bytes: number; live: boolean }[]>();
  o.today.forEach((root, host) => {
    for (const f of root.folders) {
      const live = root.layout ? root.layout.shards.includes(shardOf(f.guild, root.layout.total)) : false;
      holders.set(f.guild, [...(holders.get(f.guild) ?? []), { host, bytes: f.bytes, live }]);
    }
  });
  const guilds = [...holders.keys()].sort(bySnowflake);
  const hosts: HostPlan[] = split.map((shards, host) => ({ host, shards, guilds: [] }));
  const moves: FolderMove[] = [];
  for (const guild of guilds) {
    const to = hostOfShard.get(shardOf(guild, o.total)) as number;
    hosts[to].guilds.push(guild);
    const held = holders.get(guild) ?? [];
    const live = held.filter((h) => h.live);
    const sources = live.length ? live : held;
    if (sources.some((h) => h.host === to)) continue;
    moves.push({ guild, from: sources[0].host, to, bytes: sources[0].bytes });
  }
  return { total: o.total, hosts, moves };
}

/** A server folder in a data root whose layout does not run its shard. */
export interface StrayFolder extends ServerFolder {
  shard: number;
}

/** The server folders of a data root that its recorded layout runs, and the strays it does not. */
export function checkFolders(layout: ShardLayout, folders: readonly ServerFolder[]): { own: ServerFolder[]; strays: StrayFolder[] } {
  const own: ServerFolder[] = [];
  const strays: StrayFolder[] = [];
  for (const f of folders) {
    const shard = shardOf(f.guild, layout.total);
    if (layout.shards.includes(shard)) own.push(f);
    else strays.push({ ...f, shard });
  }
  return { own, strays };
}

function bySnowflake(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
