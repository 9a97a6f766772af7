import { z } from 'zod';
import { silentLogger } from '../log/logger';
import { atomicWrite } from './atomicWrite';
import { shardLayoutFile } from './layout';
import { readStateFile } from './stateFile';
import { StoreError } from './storeErrors';

/**
 * The shard layout a data root records (`.minutes/shards.json`): how many shards the bot had and
 * which of them ran on this data root when it was last started. A host's data root holds only the
 * folders of its shards' servers, so a start with another layout must not go ahead unnoticed: the
 * servers that now land here would be answered without their memory.
 */
export interface ShardLayout {
  total: number;
  /** Sorted, without repeats, each below `total`. */
  shards: number[];
}

const ShardLayoutSchema = z
  .object({ total: z.number().int().positive(), shards: z.array(z.number().int().nonnegative()).min(1) })
  .refine((l) => l.shards.every((id) => id < l.total), { message: 'every shard id must be below total' });

/** Shard ids above this are a typo, not a bot (Discord's largest bots run a few thousand shards). */
export const MAX_SHARDS = 100_000;

/** `0-3,8` → [0, 1, 2, 3, 8]; a problem (what is wrong, without the option's name) otherwise. */
export function parseShardList(text: string): { ids: number[] } | { problem: string } {
  const ids = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) return { problem: `"${part}" is not a shard id or a range such as 0-3` };
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from) return { problem: `the range ${part} runs backwards` };
    if (to >= MAX_SHARDS) return { problem: `shard ${to} is beyond ${MAX_SHARDS - 1}` };
    for (let id = from; id <= to; id++) ids.add(id);
  }
  return { ids: [...ids].sort((a, b) => a - b) };
}

/** [0, 1, 2, 3, 8] → `0-3,8`: how the CLI spells a list (parseShardList reads it back). */
export function formatShardList(ids: readonly number[]): string {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(j === i ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** Whether a layout runs every shard of its bot (its data root then holds every server). */
export function isWhole(layout: ShardLayout): boolean {
  return layout.shards.length === layout.total;
}

export function describeLayout(layout: ShardLayout): string {
  if (layout.total === 1) return 'one unsharded process';
  return isWhole(layout) ? `all ${layout.total} shards` : `shards ${formatShardList(layout.shards)} of ${layout.total}`;
}

/**
 * Whether a data root that recorded `recorded` may start `next`, and what to record then. It may
 * when nothing is recorded yet, when it ran every shard (it holds every server's folder, whatever
 * the new split), when the total is unchanged and `next` runs only shards it ran, or when
 * `reshard` says the folders have been moved. The record is always the layout of the last start.
 */
export function layoutChange(recorded: ShardLayout | null, next: ShardLayout, reshard: boolean): { ok: true } | { ok: false; problem: string } {
  if (!recorded || reshard || isWhole(recorded)) return { ok: true };
  if (recorded.total === next.total && next.shards.every((id) => recorded.shards.includes(id))) return { ok: true };
  return {
    ok: false,
    problem:
      `this data root was last started with ${describeLayout(recorded)} and holds only those servers' folders, so ${describeLayout(next)} would answer servers without their memory: ` +
      `move the folders first (\`minutes shards plan --total ${next.total} --hosts N --data-dir DIR…\` lists them), then start once with --reshard`,
  };
}

/** The recorded layout, null when none; a record that does not parse or fit throws a StoreError (its callers print it as their one line). */
export async function readShardLayout(root: string): Promise<ShardLayout | null> {
  return readStateFile(shardLayoutFile(root), ShardLayoutSchema, { root, log: silentLogger(), strict: true });
}

export async function writeShardLayout(root: string, layout: ShardLayout): Promise<void> {
  await atomicWrite(shardLayoutFile(root), `${JSON.stringify({ total: layout.total, shards: layout.shards })}\n`);
}

/**
 * `minutes start`'s check: refuses (one line, naming the data root) a layout the data root cannot
 * serve, and otherwise records `next` as its layout.
 */
export async function claimShardLayout(
  root: string,
  next: ShardLayout,
  o: { reshard: boolean },
): Promise<{ problem: string } | { recorded: ShardLayout | null }> {
  let recorded: ShardLayout | null;
  try {
    recorded = await readShardLayout(root);
  } catch (err) {
    if (err instanceof StoreError) return { problem: `in the data root ${root}: ${err.message}` };
    throw err;
  }
  const change = layoutChange(recorded, next, o.reshard);
  if (!change.ok) return { problem: `${change.problem} (recorded in ${shardLayoutFile(root)})` };
  if (!recorded || recorded.total !== next.total || formatShardList(recorded.shards) !== formatShardList(next.shards)) {
    try {
      await writeShardLayout(root, next);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      return {
        problem: `the data root ${root} is not writable (${code}, recording ${shardLayoutFile(root)}): set MINUTES_DATA_DIR to a folder this user can write`,
      };
    }
  }
  return { recorded };
}
