import { FolderAppends } from './appendInFolder';
import { jsonLine } from '../shared/jsonLines';
import { redactValues } from '../shared/secrets';
import { atomicWrite } from './atomicWrite';

/**
 * The writes the store does without the channel's queue and lock, because only this process writes
 * those files: JSON Lines appends (log.jsonl, tombstones, queues) and the bot's private state
 * (conversation.json, usage.json). Each file's writes land in the order they were asked for, and
 * `idle` waits for all of them (shutdown).
 */
export class OrderedWrites {
  /**
   * The appends, synchronous on purpose: a small append reaches the page cache in one
   * open/write/close on this thread (~40 µs a line under a burst of 2,000 new channels). Through
   * the promise API the same append cost the turn worker ~100-200 µs (a FileHandle, its promises,
   * and a hand-off to libuv's threads, busy with the same burst): 19 % of its first 5 s, its
   * largest single cost (docs/benchmarks.md). Still async to callers (see `append`).
   */
  private readonly appends = new FolderAppends();
  /** Per JSONL file: lines waiting for the append in flight to finish, and that append. */
  private readonly appendBatches = new Map<string, { lines: string[]; written: Promise<void> }>();
  private readonly appendsInFlight = new Map<string, Promise<void>>();
  /** Per private state file: the last write queued. */
  private readonly privateWrites = new Map<string, Promise<void>>();

  /**
   * Appends one record, redacted, as a JSON line. Lines for one file are coalesced: those asked for
   * before their batch goes (a microtask later, or after the append ahead of it) go out as one
   * write, in order: a turn's lines, or a burst's handed over at once, cost one open/append/close.
   */
  append(file: string, record: unknown): Promise<void> {
    const line = jsonLine(redactValues(record));
    const waiting = this.appendBatches.get(file);
    if (waiting) {
      waiting.lines.push(line);
      return waiting.written;
    }
    const batch: { lines: string[]; written: Promise<void> } = { lines: [line], written: Promise.resolve() };
    const before = this.appendsInFlight.get(file) ?? Promise.resolve();
    batch.written = before.then(() => {
      // From here on new lines start the next batch.
      this.appendBatches.delete(file);
      this.appends.append(file, batch.lines.join(''));
    });
    this.appendBatches.set(file, batch);
    this.track(this.appendsInFlight, file, batch.written);
    return batch.written;
  }

  /**
   * Atomic, but without the channel's queue and lock, so the reply path never waits behind other
   * channels' writers. The value is serialised now (later changes to it are not written); the file
   * always ends with the latest.
   */
  writePrivate(file: string, value: unknown, o: { syncDir?: boolean } = {}): Promise<void> {
    const text = JSON.stringify(value) + '\n';
    // atomicWrite creates the folder: a channel's first turn can finish before ensureChannel does.
    const written = (this.privateWrites.get(file) ?? Promise.resolve()).then(() => atomicWrite(file, text, o));
    this.track(this.privateWrites, file, written);
    return written;
  }

  async idle(): Promise<void> {
    while (this.appendsInFlight.size || this.privateWrites.size) {
      await Promise.all([...this.appendsInFlight.values(), ...this.privateWrites.values()]);
    }
  }

  /** Keeps the file's latest write (settled either way) until it is done. */
  private track(map: Map<string, Promise<void>>, file: string, written: Promise<void>): void {
    const settled = written.then(
      () => undefined,
      () => undefined,
    );
    map.set(file, settled);
    const done = () => {
      if (map.get(file) === settled) map.delete(file);
    };
    settled.then(done, done);
  }
}
