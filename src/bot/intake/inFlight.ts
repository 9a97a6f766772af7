/**
 * Work started by Discord event handlers, tracked so that shutdown can wait for it: writes landing
 * after the store's last flush would be half-done memory. Once closing, nothing new starts.
 */
export class InFlight {
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  /** `onError` reports a handler that threw; the handler's failure never reaches the caller. */
  constructor(private readonly onError: (err: unknown, what: string) => void) {}

  get closing(): boolean {
    return this.closed;
  }

  /** Starts `fn`: nothing to await (its failure goes to onError; close() waits for it). */
  run(what: string, fn: () => Promise<unknown>): void {
    if (this.closed) return;
    const p = (async () => {
      try {
        await fn();
      } catch (err) {
        this.onError(err, what);
      }
    })();
    this.running.add(p);
    const done = () => void this.running.delete(p);
    p.then(done, done);
  }

  /** Stops new work at once, then waits for what is running (and anything it starts). */
  async close(): Promise<void> {
    this.closed = true;
    while (this.running.size) await Promise.all([...this.running]);
  }
}
