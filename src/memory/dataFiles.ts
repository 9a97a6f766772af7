import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

/**
 * Reading the data root for those that only look (the audit, the dashboard, /status, the chat
 * engine's quick checks): every missing or unreadable file or folder is the empty case, never an
 * error, and nothing here creates or changes anything. Writes go through the store.
 */

/** A file's text, or null when it is missing or cannot be read. */
export async function readTextOrNull(file: string): Promise<string | null> {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch {
    return null;
  }
}

/** The names in a folder, sorted; none when it is missing. */
export async function listNames(dir: string): Promise<string[]> {
  return (await fsp.readdir(dir).catch(() => [] as string[])).sort();
}

/** The names of the folders in a folder (not following symlinks), sorted; none when it is missing. */
export async function listFolders(dir: string): Promise<string[]> {
  try {
    return (await fsp.readdir(dir, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * The last `maxBytes` of a file, from the start of a line (a partial first line is dropped), or
 * null when it is missing. For append-only logs whose recent end is what matters (what is still
 * owed after a restart): a grown channel's whole log is never read for it.
 */
export async function readTailText(file: string, maxBytes: number): Promise<string | null> {
  return (await readTail(file, maxBytes))?.text ?? null;
}

/** readTailText, and whether the file was longer than the window (a reader that says so: the dashboard). */
export async function readTail(file: string, maxBytes: number): Promise<{ text: string; cut: boolean } | null> {
  let fh: fsp.FileHandle | undefined;
  try {
    fh = await fsp.open(file, 'r');
    const { size } = await fh.stat();
    const start = Math.max(0, size - maxBytes);
    const buf = Buffer.alloc(size - start);
    await fh.read(buf, 0, buf.length, start);
    const text = buf.toString('utf8');
    return start === 0 ? { text, cut: false } : { text: text.slice(text.indexOf('\n') + 1), cut: true };
  } catch {
    return null;
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

export interface FileStat {
  size: number;
  mtimeMs: number;
  mtime: Date;
}

export async function statOrNull(file: string): Promise<FileStat | null> {
  return fsp.stat(file).catch(() => null);
}

export async function exists(file: string): Promise<boolean> {
  return (await statOrNull(file)) !== null;
}

/** For the few synchronous checks on the hot path (is there a conversation file yet?). */
export function existsSync(file: string): boolean {
  return fs.existsSync(file);
}

/**
 * The name, size and mtime of every entry of a folder, as one string: it changes whenever anything
 * in the folder does, since the store writes by atomic rename.
 */
export async function folderSignature(dir: string): Promise<string> {
  let names: string[];
  try {
    names = (await fsp.readdir(dir)).sort();
  } catch {
    return `${dir}:-`;
  }
  const parts = await Promise.all(
    names.map(async (n) => {
      try {
        const s = await fsp.stat(path.join(dir, n));
        return `${n}:${s.size}:${s.mtimeMs}`;
      } catch {
        return `${n}:?`;
      }
    }),
  );
  return `${dir}|${parts.join('|')}`;
}
