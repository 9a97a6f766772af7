/**
 * Waiting for the world to reach a state. Conditions are re-checked on every change the fake
 * announces and every 25 ms (for things outside the fake, like files the bot writes), and a
 * timeout error ends with the fake's recent activity so a failing test says what happened.
 */
import type { EventEmitter } from 'node:events';

export class Waiters {
  private readonly pending = new Set<(err: Error) => void>();

  constructor(
    private readonly events: EventEmitter,
    private readonly describeActivity: () => string,
  ) {}

  /** Resolves with the first truthy value of `check`. */
  waitFor<T>(check: () => T, timeoutMs: number, what: string): Promise<NonNullable<T>> {
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = () => {
        done = true;
        clearTimeout(timer);
        clearInterval(poll);
        this.events.off('change', evaluate);
        this.pending.delete(abort);
      };
      const evaluate = () => {
        if (done) return;
        try {
          const value = check();
          if (value) {
            finish();
            resolve(value as NonNullable<T>);
          }
        } catch (err) {
          finish();
          reject(err);
        }
      };
      const abort = (err: Error) => {
        finish();
        reject(err);
      };
      const timer = setTimeout(
        () => abort(new Error(`fake-discord: timed out after ${timeoutMs} ms waiting for ${what}${this.describeActivity()}`)),
        timeoutMs,
      );
      const poll = setInterval(evaluate, 25);
      // Pitfall 13: pending helper timers must not keep Node alive.
      timer.unref();
      poll.unref();
      this.events.on('change', evaluate);
      this.pending.add(abort);
      evaluate();
    });
  }

  /** Rejects every pending wait (the fake is stopping). */
  abortAll(reason: string): void {
    for (const abort of [...this.pending]) abort(new Error(reason));
  }
}
