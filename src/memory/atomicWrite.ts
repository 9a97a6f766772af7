import fs from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';

/**
 * write-file-atomic gives a unique temp name per write, fsync and rename, and removes the temp
 * file on failure; a reader sees the old file or the new one, never a mix.
 */
export async function atomicWrite(file: string, data: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, data, { encoding: 'utf8', fsync: true });
  await fsyncDir(path.dirname(file));
}

/** So the rename itself survives a power loss. Best effort: some filesystems refuse it. */
async function fsyncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // not supported here; the rename is still atomic
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

export async function readTextIfExists(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
