import fs from 'node:fs';
import path from 'node:path';
import { LRUCache } from 'lru-cache';

/**
 * Synchronous appends to files whose folder may not exist yet (a new conversation's) or may have
 * been removed by a person cleaning up while the bot ran: the folder is made once and remembered
 * (bounded: a folder forgotten is only made again). O_APPEND writes are not interleaved with
 * other appenders; a crash can only tear the last line, which readers skip.
 */
export class FolderAppends {
  private readonly knownDirs = new LRUCache<string, true>({ max: 1024 });

  /** Appends `text`; true when the folder had vanished and was made again (the file is new). */
  append(file: string, text: string): boolean {
    const dir = path.dirname(file);
    if (!this.knownDirs.has(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      this.knownDirs.set(dir, true);
    }
    try {
      fs.appendFileSync(file, text, 'utf8');
      return false;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      fs.mkdirSync(dir, { recursive: true });
      fs.appendFileSync(file, text, 'utf8');
      return true;
    }
  }

  /** The folder exists (made by someone else, e.g. ahead of the first append). */
  known(dir: string): void {
    this.knownDirs.set(dir, true);
  }

  isKnown(dir: string): boolean {
    return this.knownDirs.has(dir);
  }
}
