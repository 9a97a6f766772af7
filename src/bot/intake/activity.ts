/**
 * What this process is doing on Discord's REST path right now, shared by the parts that spend its
 * budget (discord.js allows 50 requests a second for the whole bot): answers in flight (a turn and
 * its sends) and REST calls in flight (sends and typing). The reply path reads it to leave typing
 * out while replies queue; the Secretary's sweep waits for a quiet moment before it reads archives.
 * One per process, made by the composition root.
 */
export class BotActivity {
  private answers = 0;
  private rest = 0;
  /** When something last started or finished (ms, `now()`): quiet counts from there. */
  private lastChange: number;
  private readonly now: () => number;

  constructor(o: { now?: () => number } = {}) {
    this.now = o.now ?? (() => performance.now());
    this.lastChange = this.now();
  }

  /** An answer (its turn and its sends) began; call the returned function when it is over. */
  answering(): () => void {
    this.answers++;
    this.lastChange = this.now();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.answers--;
      this.lastChange = this.now();
    };
  }

  /** A REST call this process makes for a reply (a send or typing), counted while it is in flight. */
  async restCall<T>(call: () => Promise<T>): Promise<T> {
    this.rest++;
    this.lastChange = this.now();
    try {
      return await call();
    } finally {
      this.rest--;
      this.lastChange = this.now();
    }
  }

  get restInFlight(): number {
    return this.rest;
  }

  /** Nothing in flight, and nothing started or finished for `quietMs`. */
  quietFor(quietMs: number): boolean {
    return this.answers === 0 && this.rest === 0 && this.now() - this.lastChange >= quietMs;
  }

  /**
   * Resolves once the bot has been quiet for `quietMs`, after `maxWaitMs` at most (a bot that is
   * never quiet still gets its background work done), or soon after `stop()` turns true.
   */
  async quiet(o: { quietMs: number; maxWaitMs: number; stop: () => boolean }): Promise<void> {
    const deadline = this.now() + o.maxWaitMs;
    const poll = Math.max(10, Math.min(o.quietMs, 250));
    while (!this.quietFor(o.quietMs) && !o.stop() && this.now() < deadline) {
      await new Promise<void>((resolve) => setTimeout(resolve, poll).unref());
    }
  }
}

/**
 * A token bucket: at most `burst` at once, refilled at `perSecond`. Used to cap optional REST
 * calls (typing) per process, whatever the number of channels answering.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly now: () => number;

  constructor(private readonly o: { burst: number; perSecond: number; now?: () => number }) {
    this.now = o.now ?? (() => performance.now());
    this.tokens = o.burst;
    this.last = this.now();
  }

  /** Takes one token if there is one. */
  take(): boolean {
    const t = this.now();
    this.tokens = Math.min(this.o.burst, this.tokens + ((t - this.last) / 1000) * this.o.perSecond);
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens--;
    return true;
  }
}
