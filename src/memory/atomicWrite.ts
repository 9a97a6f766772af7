import crypto from 'node:crypto';
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

/** A new version written and fsynced next to its file, waiting for `commit` (the rename). */
export interface StagedWrite {
  commit(): Promise<void>;
  /** Puts the new file in place only if none exists (a hard link fails on an existing name); false if one does. */
  commitIfAbsent(): Promise<boolean>;
  discard(): Promise<void>;
}

/**
 * atomicWrite in two halves, so a caller can do the slow part (write, fsync) first and check the
 * file once more just before the rename. The temp name has write-file-atomic's shape
 * (`<file>.<digits>`), so the leftovers of a crash are recognised and swept the same way.
 */
export async function stageWrite(file: string, data: string): Promise<StagedWrite> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${crypto.randomBytes(4).readUInt32BE(0)}`;
  const mode = await fs.stat(file).then((s) => s.mode & 0o7777, () => undefined);
  try {
    const handle = await fs.open(tmp, 'wx', mode ?? 0o666);
    try {
      await handle.writeFile(data, 'utf8');
      // The open mode is masked by the umask; a person's chosen mode must survive our rewrite.
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  return {
    commit: async () => {
      await fs.rename(tmp, file);
      await fsyncDir(path.dirname(file));
    },
    commitIfAbsent: async () => {
      try {
        await fs.link(tmp, file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw err;
      } finally {
        await fs.rm(tmp, { force: true });
      }
      await fsyncDir(path.dirname(file));
      return true;
    },
    discard: () => fs.rm(tmp, { force: true }),
  };
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

/** Lenient: invalid bytes become U+FFFD. Fine for a prompt, never for text we write back. */
export async function readTextIfExists(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export class NotUtf8Error extends Error {
  override name = 'NotUtf8Error';
  constructor(readonly file: string) {
    super(`${file} is not valid UTF-8; Minutes will not rewrite it until it is re-saved as UTF-8`);
  }
}

// ignoreBOM keeps a byte-order mark in the text, so a rewrite does not silently drop it.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * For text that will be written back: a lenient decode would turn every invalid byte into U+FFFD
 * and the next write would make that loss permanent (backup included).
 */
export async function readTextForWrite(file: string): Promise<string | null> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new NotUtf8Error(file);
  }
}
