import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import fsSync from 'node:fs';
import path from 'node:path';

/**
 * Every memory and state file is replaced the same way: the new text goes to a temp file beside the
 * real one, is fsynced, and is renamed over it (then the folder is fsynced), so a reader sees the
 * old file or the new one, never a mix. Written here rather than with write-file-atomic because
 * the store needs the two halves apart (compare just before the rename, see store.ts) and because
 * one temp-name scheme lets a crash's leftovers be recognised without touching people's files.
 */
export async function atomicWrite(file: string, data: string, o: { syncDir?: boolean } = {}): Promise<void> {
  await (await stageWrite(file, data)).commit(o);
}

/** A new version written and fsynced next to its file, waiting for `commit` (the rename). */
export interface StagedWrite {
  /**
   * `syncDir: false` leaves the rename itself unsynced: a power cut may then bring back the old
   * version (never a mix); for state where the old version is an acceptable answer (counts).
   */
  commit(o?: { syncDir?: boolean }): Promise<void>;
  /** Puts the new file in place only if none exists (a hard link fails on an existing name); false if one does. */
  commitIfAbsent(): Promise<boolean>;
  discard(): Promise<void>;
}

/** `.<name>.minutes-tmp-<hex>`: hidden, and never a name a person gives a copy. */
const TEMP_MARK = '.minutes-tmp-';
const TEMP_NAME = /^\..+\.minutes-tmp-[0-9a-f]+$/;

/** Whether a file name is one of stageWrite's temp files (what a crash can leave behind). */
export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

/**
 * atomicWrite in two halves, so a caller can do the slow part (write, fsync) first and check the
 * file once more just before the rename. A symlinked file is written through to its target (the
 * link stays), with the target's mode and, where permitted, its owner.
 */
export async function stageWrite(file: string, data: string, o: { durable?: boolean; mode?: number } = {}): Promise<StagedWrite> {
  // `durable: false` skips the fsyncs (still atomic for readers): for files a power cut may lose
  // because they are made again when missing (a channel's templates), not for anything a person said.
  const durable = o.durable !== false;
  // Silent on purpose: not a link (or gone): write the path itself.
  const real = await fs.realpath(file).catch(() => file);
  const dir = path.dirname(real);
  await fs.mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(real)}${TEMP_MARK}${crypto.randomBytes(6).toString('hex')}`);
  // Silent on purpose: a missing file or folder is the empty case.
  const st = await fs.stat(real).catch(() => undefined);
  try {
    // `mode`: a new file's own (a key is made 0600 from the start, never readable for a moment).
    const handle = await fs.open(tmp, 'wx', st ? st.mode & 0o7777 : (o.mode ?? 0o666));
    try {
      await handle.writeFile(data, 'utf8');
      if (st) {
        // The open mode is masked by the umask; a person's chosen mode (and owner) survives our rewrite.
        await handle.chmod(st.mode & 0o7777);
        // Silent on purpose: keeping the owner is best effort (not root, or not allowed): the content is what matters.
        await handle.chown(st.uid, st.gid).catch(() => undefined);
      }
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  return {
    commit: async (o = {}) => {
      try {
        await fs.rename(tmp, real);
      } catch (err) {
        await fs.rm(tmp, { force: true });
        throw err;
      }
      if (o.syncDir !== false) await fsyncDir(dir);
    },
    commitIfAbsent: async () => {
      try {
        await fs.link(tmp, real);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') return false;
        // File systems without hard links (exFAT, some network shares): an exclusive copy.
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
        try {
          await fs.copyFile(tmp, real, fs.constants.COPYFILE_EXCL);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
          throw e;
        }
      } finally {
        await fs.rm(tmp, { force: true });
      }
      if (durable) await fsyncDir(dir);
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
    // Silent on purpose: closing after a failed write: the write's own error is the one reported.
    await handle?.close().catch(() => undefined);
  }
}

/** Lenient: invalid bytes become U+FFFD. Fine for a prompt, never for text we write back. */
export async function readTextIfExists(file: string): Promise<string | null> {
  // A new channel's state files are all missing at first, and a failed open through the promise
  // API costs the thread an error with its stack (~35 µs against ~3 for this stat). Only "no such
  // file" is null here; any other failure (permissions, a file where a folder should be) throws as
  // the read would. A file made or removed in between is read as it was a moment earlier or later.
  if (fsSync.statSync(file, { throwIfNoEntry: false }) === undefined) return null;
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

/**
 * Writes `next` over `file` unless the file is no longer `expected` (null: absent). The slow work
 * (temp file written and fsynced) comes before the last look at the file, so a person's edit can
 * only be missed in the compare-and-rename, not during the fsyncs. That window cannot reach zero:
 * no portable rename-if-unchanged exists.
 */
export async function replaceIfUnchanged(
  file: string,
  expected: string | null,
  next: string,
  read: (file: string) => Promise<string | null> = readTextForWrite,
): Promise<boolean> {
  const staged = await stageWrite(file, next);
  let committed = false;
  try {
    if ((await read(file)) !== expected) return false;
    await staged.commit();
    committed = true;
    return true;
  } finally {
    if (!committed) await staged.discard();
  }
}
