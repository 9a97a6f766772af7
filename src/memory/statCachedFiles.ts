import fs from 'node:fs';

/**
 * CONTEXT.md, SOUL.md and AGENTS.md, re-read only when their size or mtime changes. Synchronous on
 * purpose: a stat takes microseconds, while an async one waits for the thread pool, which a burst
 * of messages keeps busy with log appends (recall stats its files the same way).
 */
export class StatCachedFiles {
  private readonly cache = new Map<string, { mtimeMs: number; size: number; text: string }>();
  /** Files reported unreadable, so the log says it once, not every turn. */
  private readonly reported = new Set<string>();

  constructor(private readonly onUnreadable: (file: string, err: Error) => void) {}

  read(file: string): string | null {
    try {
      const st = fs.statSync(file, { throwIfNoEntry: false });
      if (!st) {
        this.cache.delete(file);
        return null;
      }
      const hit = this.cache.get(file);
      if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.text;
      const text = fs.readFileSync(file, 'utf8');
      this.cache.set(file, { mtimeMs: st.mtimeMs, size: st.size, text });
      this.reported.delete(file);
      return text;
    } catch (err) {
      // Unreadable (permissions, a folder in its place): treated as absent, the turn goes on.
      if (!this.reported.has(file)) {
        this.reported.add(file);
        this.onUnreadable(file, err as Error);
      }
      return null;
    }
  }
}
