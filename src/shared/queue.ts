import { LRUCache } from 'lru-cache';

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
    const done = () => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
    tail.then(done, done);
    return next;
  }

  /** Resolves when every task queued so far, on every key, has finished. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) {
      await Promise.all([...this.tails.values()]);
    }
  }

  /** Whether a task for this key is queued or running. */
  busy(key: string): boolean {
    return this.tails.has(key);
  }

  get pendingKeys(): number {
    return this.tails.size;
  }
}

/**
 * The first run of a task per key, shared by every later caller (a burst of messages in a new
 * channel makes its folder once). A run that fails is forgotten, so the next caller tries again.
 * Runs in flight are all kept; finished ones only the `maxDone` most recent, so a bot in thousands
 * of channels does not keep one entry each forever: a key forgotten runs its task once more, so a
 * task given here must be harmless to repeat (it checks, then does only what is missing).
 */
export class OncePerKey {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly done: LRUCache<string, true>;

  constructor(o: { maxDone?: number } = {}) {
    this.done = new LRUCache<string, true>({ max: o.maxDone ?? DEFAULT_MAX_DONE });
  }

  run(key: string, task: () => Promise<void>): Promise<void> {
    const running = this.inFlight.get(key);
    if (running) return running;
    if (this.done.get(key)) return DONE;
    const mine = task();
    this.inFlight.set(key, mine);
    // Silent on purpose: settlement only: the error belongs to the caller awaiting `mine`.
    mine.then(
      () => {
        this.inFlight.delete(key);
        this.done.set(key, true);
      },
      () => this.inFlight.delete(key),
    );
    return mine;
  }

  /** The run started for this key, if any (done and still remembered, or in flight). */
  get(key: string): Promise<void> | undefined {
    return this.inFlight.get(key) ?? (this.done.has(key) ? DONE : undefined);
  }

  /** Settles when every run started so far has settled; never rejects. */
  async settled(): Promise<void> {
    // Silent on purpose: settlement only: the errors belong to the callers awaiting them.
    await Promise.all(Array.from(this.inFlight.values(), (p) => p.catch(() => undefined)));
  }
}

/** Finished runs remembered: more than the conversations a busy bot answers in at once. */
const DEFAULT_MAX_DONE = 10_000;
const DONE: Promise<void> = Promise.resolve();

/**
 * Lets waiters go a few per turn of the event loop, in the order they asked: between two batches
 * the loop polls for I/O. For bursts of work whose first synchronous stretch is long (a turn's
 * recall and prompt): a hundred started at once would otherwise run back to back while finished
 * I/O (a model's answer) waits behind all of them.
 */
export class FewPerLoopTurn {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;
  /** Callers of `drained`, told when nothing waits any more. */
  private readonly drainWaiters: (() => void)[] = [];

  constructor(private readonly perTurn: number) {}

  next(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  /**
   * Settles once nothing waits for its turn (at once when nothing does): work that can wait, such
   * as a new channel's templates, goes after a burst's turns instead of between them.
   */
  drained(): Promise<void> {
    if (!this.waiting.length) return Promise.resolve();
    return new Promise<void>((resolve) => this.drainWaiters.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // An immediate queued from an immediate runs in the next turn of the loop, after its I/O poll.
    setImmediate(() => {
      this.scheduled = false;
      for (const go of this.waiting.splice(0, this.perTurn)) go();
      if (this.waiting.length) this.schedule();
      else if (this.drainWaiters.length) for (const tell of this.drainWaiters.splice(0)) tell();
    });
  }
}
