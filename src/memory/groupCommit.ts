import fs from 'node:fs';
import path from 'node:path';
import { FolderAppends } from './appendInFolder';

export interface GroupCommitOptions {
  /**
   * How long an appended line may wait for its fsync. A process killed (kill -9, an OOM kill)
   * loses nothing either way: the line is in the kernel's page cache once `appendSync` returns. A
   * power cut or a kernel crash loses what was appended in the last `everyMs` (plus the disk's own
   * write cache, if it lies about flushing).
   */
  everyMs: number;
  /** A failed fsync is reported here; the lines are still in the page cache and the next commit tries again. */
  onError: (err: unknown, file: string) => void;
}

/**
 * Appends that have reached the kernel when the call returns, with their fsyncs grouped: every
 * file appended to since the last commit is fsynced once, at most `everyMs` after its first line.
 * A burst of turns costs one fsync per file per window instead of one (or two) per turn, and no
 * caller ever waits for one.
 */
export class GroupCommit {
  /** File → whether it was created since the last commit (its folder's entry must be synced too). */
  private readonly dirty = new Map<string, boolean>();
  /** The appends, with the folders known to exist (an append does not mkdir every time). */
  private readonly appends = new FolderAppends();
  private timer: NodeJS.Timeout | null = null;
  private committing: Promise<void> = Promise.resolve();

  constructor(private readonly o: GroupCommitOptions) {}

  /**
   * Synchronous on purpose: the line is written before the caller goes on (a reply sent after this
   * is never ahead of its record), and one small write() costs less than the promise round trips
   * of an asynchronous append. `created`: the file did not exist before this line.
   */
  appendSync(file: string, text: string, created: boolean): void {
    // A folder removed while we ran (a person cleaning up) is made again: the file is new then too.
    if (this.appends.append(file, text)) created = true;
    this.dirty.set(file, (this.dirty.get(file) ?? false) || created);
    this.schedule();
  }

  /**
   * A file about to get its first line: its folder and the empty file are made now, on libuv's
   * threads, so that first `appendSync` (on the caller's thread, in a channel's first turn) only
   * writes. Making both there cost a burst of first turns ~0.7 ms each of the thread every turn
   * waits on (`node bench/first-turn.js`). An append that comes first makes them itself; a failure
   * here is left to that append to meet and report (the promise never rejects).
   */
  prepare(file: string): Promise<void> {
    const dir = path.dirname(file);
    if (this.appends.isKnown(dir)) return Promise.resolve();
    // Node's callback API, not fs/promises: its FileHandle costs the calling thread several times more per call.
    return new Promise<void>((resolve) => {
      fs.mkdir(dir, { recursive: true }, (err) => {
        if (err) return resolve();
        this.appends.known(dir);
        // 'a' creates the file when missing and never truncates what an append already wrote.
        fs.open(file, 'a', (e, fd) => (e ? resolve() : fs.close(fd, () => resolve())));
      });
    });
  }

  /** Fsyncs everything appended so far, now (shutdown, or before a file is cut). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    return this.commit();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      // syncDirty reports each file's failure through onError; nothing else of it can fail.
      void this.commit().catch((err) => this.o.onError(err, "this commit's journal files"));
    }, this.o.everyMs);
    // Pending fsyncs must not keep a finished process alive; shutdown calls flush().
    this.timer.unref();
  }

  private commit(): Promise<void> {
    this.committing = this.committing.then(() => this.syncDirty());
    return this.committing;
  }

  private async syncDirty(): Promise<void> {
    const files = [...this.dirty];
    this.dirty.clear();
    const dirs = new Set<string>();
    await Promise.all(
      files.map(async ([file, created]) => {
        try {
          await syncFile(file);
          if (created) dirs.add(path.dirname(file));
        } catch (err) {
          // Gone: folded into its snapshot and removed, nothing left to make durable.
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
          this.o.onError(err, file);
        }
      }),
    );
    await Promise.all([...dirs].map((d) => syncFile(d).catch(() => undefined)));
  }
}

/**
 * fdatasync: the appended bytes and the file's new size, not its times. Node's callback API, as in
 * `prepare`: a FileHandle's open, datasync and close through fs/promises cost the calling thread
 * several times more, and a burst of new conversations syncs one new file each.
 */
function syncFile(file: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    fs.open(file, 'r', (err, fd) => {
      if (err) return reject(err);
      fs.fdatasync(fd, (syncErr) => fs.close(fd, (closeErr) => (syncErr || closeErr ? reject(syncErr ?? closeErr) : resolve())));
    });
  });
}
