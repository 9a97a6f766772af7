import fs from 'node:fs';
import { LRUCache } from 'lru-cache';

/**
 * How long a stat of a file only people write (the workspace's SOUL.md, AGENTS.md and MEMORY.md) is
 * reused: one stat a second serves every turn of every channel, and a hand edit shows within it
 * (README, "Where memory lives"). Files the bot writes itself (a channel's CONTEXT.md) are stat-ed on
 * every read, so its own writes show at once.
 */
export const WORKSPACE_RESTAT_MS = 1_000;

/**
 * Texts kept, least recently used dropped first, by size (UTF-16): a CONTEXT.md is a few KB, so
 * ~2,000 busy channels stay cached, and a bot in 10,000 channels re-reads only the ones it has not
 * answered in a while instead of growing without bound.
 */
const TEXT_CACHE_BYTES = 16 * 1024 * 1024;
/** Unreadable files remembered (so each is reported once): beyond this, one is reported again. */
const REPORTED_MAX = 1_000;

export interface StatCachedFilesOptions {
  onUnreadable: (file: string, err: Error) => void;
  /** A monotonic clock in ms, for the reuse window. */
  monotonicMs?: () => number;
}

interface Cached {
  mtimeMs: number;
  size: number;
  text: string | null;
  /** When the stat was taken. */
  at: number;
}

/**
 * CONTEXT.md, SOUL.md and AGENTS.md, re-read only when their size or mtime changes. Synchronous on
 * purpose: a stat takes microseconds, while an async one waits for the thread pool, which a burst
 * of messages keeps busy with log appends (recall stats its files the same way).
 */
export class StatCachedFiles {
  private readonly cache = new LRUCache<string, Cached>({ maxSize: TEXT_CACHE_BYTES, sizeCalculation: (c) => 64 + (c.text?.length ?? 0) * 2 });
  /** Files reported unreadable, so the log says it once, not every turn. */
  private readonly reported = new LRUCache<string, true>({ max: REPORTED_MAX });
  private readonly now: () => number;

  constructor(private readonly o: StatCachedFilesOptions) {
    this.now = o.monotonicMs ?? (() => performance.now());
  }

  /** The file's text, null when absent; `reuseStatMs` lets a stat that recent stand (WORKSPACE_RESTAT_MS). */
  read(file: string, reuseStatMs = 0): string | null {
    const now = this.now();
    const hit = this.cache.get(file);
    if (hit && reuseStatMs > 0 && now - hit.at < reuseStatMs) return hit.text;
    try {
      const st = fs.statSync(file, { throwIfNoEntry: false });
      if (!st) {
        // Remembered only when the stat may be reused: otherwise an absent file costs nothing here.
        if (reuseStatMs > 0) this.cache.set(file, { mtimeMs: -1, size: -1, text: null, at: now });
        else this.cache.delete(file);
        return null;
      }
      if (hit && hit.text !== null && hit.mtimeMs === st.mtimeMs && hit.size === st.size) {
        hit.at = now;
        return hit.text;
      }
      const text = fs.readFileSync(file, 'utf8');
      this.cache.set(file, { mtimeMs: st.mtimeMs, size: st.size, text, at: now });
      this.reported.delete(file);
      return text;
    } catch (err) {
      // Unreadable (permissions, a folder in its place): treated as absent, the turn goes on.
      if (!this.reported.has(file)) {
        this.reported.set(file, true);
        this.o.onUnreadable(file, err as Error);
      }
      return null;
    }
  }

  /** How many files' texts are cached now (bounded by TEXT_CACHE_BYTES). */
  get size(): number {
    return this.cache.size;
  }
}
