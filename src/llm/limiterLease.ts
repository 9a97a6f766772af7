import type { ModelLimiter } from './limiter';

/**
 * One model limiter for several turn workers: the thread that owns it (the gateway's, see
 * src/app/turnPool.ts) grants *leases*, and each worker's client calls the model itself while it
 * holds one. A request per minute and a slot of concurrency are counted once, wherever the call
 * runs, without Redis. Two small messages per attempt; the HTTP request never crosses threads.
 */

/** What crosses: a worker asks for a lease (`lease`) and gives it back (`release`); the owner grants it (`granted`). */
export type LeaseAsk = { type: 'lease'; lease: number; priority?: number; expirationMs?: number } | { type: 'release'; lease: number };

/** The worker's side: a ModelLimiter whose slots are granted by the owner. */
export interface LeasedLimiter extends ModelLimiter {
  /** The owner granted this lease (its `granted` message). */
  granted(lease: number): void;
}

export function leasedLimiter(send: (ask: LeaseAsk) => void): LeasedLimiter {
  const waiting = new Map<number, { resolve(): void; reject(err: Error): void }>();
  let next = 1;
  let closed = false;
  return {
    async schedule(fn, o = {}) {
      if (closed) throw new Error('the model limiter is closed');
      const lease = next++;
      await new Promise<void>((resolve, reject) => {
        waiting.set(lease, { resolve, reject });
        send({ type: 'lease', lease, priority: o.priority, expirationMs: o.expirationMs });
      });
      try {
        return await fn();
      } finally {
        send({ type: 'release', lease });
      }
    },
    granted(lease) {
      const w = waiting.get(lease);
      waiting.delete(lease);
      // Granted after close: give the slot straight back.
      if (w) w.resolve();
      else send({ type: 'release', lease });
    },
    async close() {
      closed = true;
      for (const w of waiting.values()) w.reject(new Error('the model limiter is closed'));
      waiting.clear();
    },
  };
}

/**
 * The owner's side, one per worker: asks are scheduled on the real limiter, and a lease holds its
 * slot until released, until its expiration, or until the worker is gone (`releaseAll`).
 */
export class LeaseGrants {
  private readonly held = new Map<number, () => void>();
  private gone = false;

  constructor(
    private readonly limiter: ModelLimiter,
    private readonly grant: (lease: number) => void,
  ) {}

  handle(ask: LeaseAsk): void {
    if (ask.type === 'release') {
      this.held.get(ask.lease)?.();
      this.held.delete(ask.lease);
      return;
    }
    const { lease } = ask;
    this.limiter
      .schedule(
        () =>
          new Promise<void>((release) => {
            // Asked by a worker that has died since: nobody will use or release the slot.
            if (this.gone) return release();
            this.held.set(lease, release);
            this.grant(lease);
          }),
        { priority: ask.priority, expirationMs: ask.expirationMs },
      )
      // A limiter stopped at shutdown drops queued asks; the worker is closing too.
      .catch(() => undefined);
  }

  /** The worker died or was replaced: its slots are free again, and so are those it still waits for when granted. */
  releaseAll(): void {
    this.gone = true;
    for (const release of this.held.values()) release();
    this.held.clear();
  }
}
