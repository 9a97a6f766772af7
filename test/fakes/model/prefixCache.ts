import { createHash, type Hash } from 'node:crypto';
import { charsForTokens } from './tokens';

/** One unit of an Anthropic prompt in cache order: tools, then system blocks, then message blocks. */
export interface PromptBlock {
  /** What identifies the block's content (role and block JSON without cache_control). */
  material: string;
  tokens: number;
  breakpoint: boolean;
}

export interface CacheOutcome {
  /** Tokens of the longest cached prefix found (served from cache). */
  readTokens: number;
  /** Tokens newly written to the cache beyond the read prefix. */
  writeTokens: number;
  totalTokens: number;
}

interface CacheTimes {
  now: () => number;
  ttlMs: number;
}

/**
 * Anthropic-style explicit prefix caching. A breakpoint (a block with cache_control) caches the
 * prefix ending at that block, if that prefix is at least `minTokens` long. A later request reads
 * the longest cached prefix ending at a block boundary within the 20 blocks up to and including
 * one of its breakpoints (the API's lookback), and writes every longer breakpoint prefix. Entries
 * live `ttlMs` on the injected clock and every hit renews them, as with the real 5-minute cache.
 */
export class BreakpointPrefixCache {
  static readonly LOOKBACK_BLOCKS = 20;
  private readonly entries = new Map<string, number>();

  constructor(private readonly opts: CacheTimes & { minTokens: number }) {}

  apply(model: string, blocks: PromptBlock[]): CacheOutcome {
    const now = this.opts.now();
    this.prune(now);
    const keys: string[] = [];
    const cum: number[] = [];
    let h = createHash('sha256').update(`anthropic\0${model}`);
    let total = 0;
    for (const b of blocks) {
      h = h.update(`\0${b.material}`);
      keys.push(h.copy().digest('hex'));
      total += b.tokens;
      cum.push(total);
    }
    const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    let hit = -1;
    for (const bp of breakpoints) {
      for (let i = bp; i >= 0 && i > bp - BreakpointPrefixCache.LOOKBACK_BLOCKS; i--) {
        if (i > hit && this.entries.has(keys[i])) hit = i;
      }
    }
    const readTokens = hit >= 0 ? cum[hit] : 0;
    if (hit >= 0) this.entries.set(keys[hit], now + this.opts.ttlMs);
    let lastWritten = -1;
    for (const bp of breakpoints) {
      if (bp <= hit || cum[bp] < this.opts.minTokens) continue;
      this.entries.set(keys[bp], now + this.opts.ttlMs);
      lastWritten = bp;
    }
    const writeTokens = lastWritten >= 0 ? cum[lastWritten] - readTokens : 0;
    return { readTokens, writeTokens, totalTokens: total };
  }

  clear(): void {
    this.entries.clear();
  }

  private prune(now: number): void {
    for (const [k, expires] of this.entries) if (expires <= now) this.entries.delete(k);
  }
}

/**
 * OpenAI-style automatic prefix caching over the serialised prompt: once a prompt of at least
 * `minTokens` has been seen, a later prompt sharing its beginning is reported cached up to the
 * longest shared prefix, counted in `stepTokens` increments from `minTokens` (1024, 1152, ...).
 */
export class AutoPrefixCache {
  private readonly entries = new Map<string, number>();

  constructor(private readonly opts: CacheTimes & { minTokens: number; stepTokens: number }) {}

  /** Returns cached tokens for `serialized`, then remembers all of its checkpoints. */
  apply(model: string, serialized: string): number {
    const now = this.opts.now();
    for (const [k, expires] of this.entries) if (expires <= now) this.entries.delete(k);
    const h: Hash = createHash('sha256').update(`openai\0${model}\0`);
    let fed = 0;
    let cached = 0;
    const seen: string[] = [];
    for (let tokens = this.opts.minTokens; charsForTokens(tokens) <= serialized.length; tokens += this.opts.stepTokens) {
      const upTo = charsForTokens(tokens);
      h.update(serialized.slice(fed, upTo));
      fed = upTo;
      const key = h.copy().digest('hex');
      seen.push(key);
      if (this.entries.has(key)) cached = tokens;
    }
    for (const key of seen) this.entries.set(key, now + this.opts.ttlMs);
    return cached;
  }

  clear(): void {
    this.entries.clear();
  }
}
