import fs from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';

/**
 * A lock file in a channel's `.minutes/`, so a CLI command that writes (condense --apply, audit
 * --fix) and the running bot never write the same channel at once. proper-lockfile uses an atomic
 * mkdir and treats a lock older than `stale` as abandoned by a crashed process.
 */
export async function withChannelLock<T>(stateDir: string, task: () => Promise<T>): Promise<T> {
  await fs.mkdir(stateDir, { recursive: true });
  const release = await lockfile.lock(stateDir, {
    lockfilePath: path.join(stateDir, 'lock'),
    realpath: false,
    stale: 15_000,
    retries: { retries: 60, factor: 1.3, minTimeout: 20, maxTimeout: 500 },
  });
  try {
    return await task();
  } finally {
    await release().catch(() => undefined);
  }
}
