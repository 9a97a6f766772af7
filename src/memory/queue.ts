/**
 * One FIFO queue per key (a channel folder). Every writer of a channel goes through it, so two
 * writes to one file never interleave, while different channels proceed concurrently.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(task, task);
    // The stored tail never rejects, so one failed task does not poison the queue.
    const tail = next.then(() => undefined, () => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Resolves when every task queued so far, on every key, has finished. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) {
      await Promise.all([...this.tails.values()]);
    }
  }

  get pendingKeys(): number {
    return this.tails.size;
  }
}
