import fs from 'node:fs/promises';
import lockfile from 'proper-lockfile';
import { lockFile } from './layout';

/**
 * A lock whose holder was killed is taken over after this long. The holder refreshes the lock
 * every half of it, so only a dead process (or one stalled this long) loses it.
 */
export const LOCK_STALE_MS = 8_000;

export interface ChannelLockOptions {
  /**
   * Called when the lock is lost while held (the holder stalled past `staleMs` and another
   * process took it over, or the lock folder was removed). The task keeps running: its writes are
   * still atomic and re-read the file first, but the caller should say so.
   */
  onLost?: (err: Error) => void;
  /** Called with one line when a stray `lock` that is not a folder was removed. */
  onStrayLock?: (msg: string) => void;
  /** Tests only; proper-lockfile's minimum is 2,000 ms. */
  staleMs?: number;
}

/**
 * A lock file in a channel's `.minutes/`, so a CLI command that writes (condense --apply, audit
 * --fix) and the running bot never write the same channel at once. proper-lockfile uses an atomic
 * mkdir and treats a lock older than `stale` as abandoned by a crashed process.
 */
export async function withChannelLock<T>(stateDir: string, task: () => Promise<T>, o: ChannelLockOptions = {}): Promise<T> {
  await fs.mkdir(stateDir, { recursive: true });
  const lockPath = lockFile(stateDir);
  await removeStrayLock(lockPath, o.onStrayLock);
  const release = await lockfile.lock(stateDir, {
    lockfilePath: lockPath,
    realpath: false,
    stale: o.staleMs ?? LOCK_STALE_MS,
    retries: { retries: 80, factor: 1.3, minTimeout: 20, maxTimeout: 400 },
    // The default throws from a timer, which would crash the bot.
    onCompromised: (err) => {
      try {
        o.onLost?.(err);
      } catch {
        // a failing report must not crash the process from proper-lockfile's timer
      }
    },
  });
  try {
    return await task();
  } finally {
    // Silent on purpose: the lock is released on the way out of a failure; its own error is the one reported.
    await release().catch(() => undefined);
  }
}

/**
 * proper-lockfile's lock is a folder. Anything else at that path (a file a person or a sync tool
 * left there) is never ours: proper-lockfile would retry on it for half a minute and then fail
 * its rmdir with ENOTDIR, blocking every write to the channel. It holds no lock, so remove it.
 */
async function removeStrayLock(lockPath: string, report?: (msg: string) => void): Promise<void> {
  // Silent on purpose: a missing file or folder is the empty case.
  const st = await fs.lstat(lockPath).catch(() => null);
  if (!st || st.isDirectory()) return;
  await fs.rm(lockPath, { force: true });
  try {
    report?.(`removed ${lockPath}: a lock must be a folder, this was a file (left by another tool?)`);
  } catch {
    // a failing report must not block the write
  }
}
