/**
 * One FIFO queue per key (a channel folder). Every writer of a channel goes through it, so two
 * writes to one file never interleave, while different channels proceed concurrently.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key);
    // The tail is in place before the task starts, so a task that queues on its own key waits.
    let settle!: () => void;
    const tail = new Promise<void>((resolve) => (settle = resolve));
    this.tails.set(key, tail);
    let next: Promise<T>;
    if (prev) {
      next = prev.then(task);
    } else {
      // An idle key starts at once rather than in a later microtask: under a burst of gateway
      // events every such hop waits behind thousands of queued continuations.
      try {
        next = Promise.resolve(task());
      } catch (err) {
        next = Promise.reject(err);
      }
    }
    // The tail never rejects, so one failed task does not poison the queue.
    next.then(settle, settle);
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
