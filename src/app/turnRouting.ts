import path from 'node:path';
import type { ChannelRef } from '../memory/paths';

/**
 * Which turn worker owns a conversation, when there are several (turnPool.ts). A channel and its
 * threads go to the same worker: they share the channel's MEMORY.md and CONTEXT.md, so one
 * worker's recall indexes them and one worker's upkeep writes them. Pure: the same answer in every
 * thread and after every restart, for a given number of workers.
 */
export function ownerOf(ref: ChannelRef, workers: number): number {
  return ownerOfKey(ref.kind === 'discord' ? ref.channelId : `local/${ref.name}`, workers);
}

/**
 * The owner of a folder under the data root (`<guild>/<channel>/…`, `local/<name>/…`), for what
 * arrives as a path (a memory file written, a search over a channel's folders); undefined for
 * the workspace and anything else that is no conversation's.
 */
export function ownerOfDir(root: string, dir: string, workers: number): number | undefined {
  const parts = path.relative(root, dir).split(path.sep);
  if (parts.length < 2 || parts[0] === '..' || parts[0] === '' || parts[0] === 'workspace') return undefined;
  return ownerOfKey(parts[0] === 'local' ? `local/${parts[1]}` : parts[1], workers);
}

/** FNV-1a over the key: channel ids are snowflakes whose low digits are spread, but a hash does not care. */
function ownerOfKey(key: string, workers: number): number {
  if (workers <= 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % workers;
}

/**
 * How many turn workers `"auto"` means: two on a machine with two cores or more, else one; and one
 * with the packaged sentence model (`recall.semantic: "local"`), which every worker would load
 * again. Measured on two cores, a burst over 2,000 new channels (docs/benchmarks.md): words only,
 * a second worker took dispatch → model p50 from 7.9 to 5.1 s; with the packaged model, 8.7 s with
 * one and 8.9 s with two, for ~200 MB more. More than two have not been measured.
 */
export function turnWorkerCount(setting: number | 'auto', cores: number, semantic: 'local' | 'api' | 'off'): number {
  if (setting !== 'auto') return setting;
  if (semantic === 'local') return 1;
  return Math.max(1, Math.min(2, cores));
}
