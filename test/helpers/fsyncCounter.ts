import fs from 'node:fs';
import fsp from 'node:fs/promises';

/**
 * Counts the fsyncs this process asks for (FileHandle.sync/datasync, fs.fsync/fdatasync and their
 * Sync forms), each still done for real: the wrappers call the originals. A counter, not a mock;
 * `stop()` puts the originals back.
 */
export async function countFsyncs(dir: string): Promise<{ readonly count: number; reset(): void; stop(): void }> {
  const probe = await fsp.open(dir, 'r');
  const handleProto = Object.getPrototypeOf(probe) as Record<string, (...a: unknown[]) => unknown>;
  await probe.close();
  let count = 0;
  const restore: Array<() => void> = [];
  const wrap = (target: Record<string, unknown>, name: string) => {
    const original = target[name] as (...a: unknown[]) => unknown;
    target[name] = function (this: unknown, ...args: unknown[]) {
      count++;
      return original.apply(this, args);
    };
    restore.push(() => (target[name] = original));
  };
  wrap(handleProto, 'sync');
  wrap(handleProto, 'datasync');
  for (const name of ['fsync', 'fdatasync', 'fsyncSync', 'fdatasyncSync']) wrap(fs as unknown as Record<string, unknown>, name);
  return {
    get count() {
      return count;
    },
    reset: () => (count = 0),
    stop: () => restore.forEach((r) => r()),
  };
}
