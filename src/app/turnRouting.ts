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
 * How many turn workers `"auto"` means: two when the machine has two cores or more, else one. On
 * two cores a second worker took a 2,000-channel burst's dispatch → model p50 from 8.0 to 6.2 s
 * (docs/benchmarks.md); more than two have not been measured.
 */
export function turnWorkerCount(setting: number | 'auto', cores: number): number {
  if (setting !== 'auto') return setting;
  return Math.max(1, Math.min(2, cores));
}
