import { LRUCache } from 'lru-cache';
import { z, type ZodType } from 'zod';
import type { Usage } from '../llm/types';
import type { ChannelRef } from '../memory/paths';
import type { ChannelStore } from '../memory/store';

/** One model's totals in a conversation: the provider's usage, summed, and how many calls. */
const ModelUsage = z.looseObject({
  calls: z.number(),
  purpose: z.enum(['chat', 'side']),
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
}) satisfies ZodType<Usage & { calls: number; purpose: 'chat' | 'side' }>;

/** Token usage per conversation and model (`.minutes/usage.json`), for /status and the cache benchmark. */
export const UsageRecord = z.looseObject({
  version: z.literal(1),
  /** Keyed `<purpose>:<model>`. */
  byModel: z.record(z.string(), ModelUsage),
  updatedAt: z.string().optional(),
});
export type UsageRecord = z.infer<typeof UsageRecord>;

export function usageFile(store: ChannelStore, ref: ChannelRef): string {
  return store.paths(ref).usage;
}

export interface UsageBookOptions {
  /** A conversation's usage.json is written at most this often (and at flush()). Default 5 s. */
  writeEveryMs?: number;
  /** Conversations whose totals are held in memory, least recently used evicted first. Default 1,000. */
  maxHeld?: number;
}

/** A record changed since it was last written: kept in memory (never evicted) until it is. */
interface Unsaved {
  rec: UsageRecord;
  timer: NodeJS.Timeout | null;
  written: Promise<void>;
}

/**
 * Usage kept in memory and written behind the reply: counting tokens must never slow an answer.
 * Each conversation's file is written at most every `writeEveryMs` with the totals as they are
 * then, and at flush() (shutdown). A process killed in between loses the last few seconds of
 * counts, never a reply; the store writes one file's versions in order, so the file always ends
 * with the latest totals.
 */
export class UsageBook {
  private readonly records: LRUCache<string, Promise<UsageRecord>>;
  private readonly unsaved = new Map<string, Unsaved>();
  private readonly adding = new Set<Promise<void>>();
  private readonly writeEveryMs: number;

  constructor(
    private readonly store: ChannelStore,
    o: UsageBookOptions = {},
  ) {
    this.records = new LRUCache({ max: o.maxHeld ?? 1_000 });
    this.writeEveryMs = o.writeEveryMs ?? 5_000;
  }

  /** How many conversations' totals are in memory now. */
  get heldCount(): number {
    return this.records.size + [...this.unsaved.keys()].filter((k) => !this.records.has(k)).length;
  }

  add(ref: ChannelRef, model: string, purpose: 'chat' | 'side', u: Usage, at: Date): Promise<void> {
    // Counted even when flush() comes before the record is read (a side call's count posted just
    // before shutdown): flush waits for the adds in flight.
    const adding = this.addNow(ref, model, purpose, u, at);
    this.adding.add(adding);
    const done = () => void this.adding.delete(adding);
    adding.then(done, done);
    return adding;
  }

  private async addNow(ref: ChannelRef, model: string, purpose: 'chat' | 'side', u: Usage, at: Date): Promise<void> {
    const file = usageFile(this.store, ref);
    const rec = await this.load(file);
    const key = `${purpose}:${model}`;
    const cur = rec.byModel[key] ?? { calls: 0, purpose, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    rec.byModel[key] = {
      calls: cur.calls + 1,
      purpose,
      inputTokens: cur.inputTokens + u.inputTokens,
      outputTokens: cur.outputTokens + u.outputTokens,
      cacheReadTokens: cur.cacheReadTokens + u.cacheReadTokens,
      cacheWriteTokens: cur.cacheWriteTokens + u.cacheWriteTokens,
    };
    rec.updatedAt = at.toISOString();
    this.schedule(file, rec);
  }

  read(ref: ChannelRef): Promise<UsageRecord> {
    return this.load(usageFile(this.store, ref)).then((r) => structuredClone(r));
  }

  /** Writes every changed record now and waits for the writes (shutdown). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.adding]);
    for (const [file, u] of this.unsaved) if (u.timer) this.write(file, u);
    while (this.unsaved.size) await Promise.all([...this.unsaved.values()].map((u) => u.written));
  }

  private load(file: string): Promise<UsageRecord> {
    const unsaved = this.unsaved.get(file);
    if (unsaved) return Promise.resolve(unsaved.rec);
    let r = this.records.get(file);
    if (!r) {
      r = this.store.readState(file, UsageRecord).then((x) => x ?? { version: 1, byModel: {} });
      this.records.set(file, r);
    }
    return r;
  }

  private schedule(file: string, rec: UsageRecord): void {
    const u = this.unsaved.get(file) ?? { rec, timer: null, written: Promise.resolve() };
    this.unsaved.set(file, u);
    if (u.timer) return;
    u.timer = setTimeout(() => this.write(file, u), this.writeEveryMs);
    // A pending write must not keep a finished process alive; shutdown calls flush().
    u.timer.unref();
  }

  private write(file: string, u: Unsaved): void {
    if (u.timer) clearTimeout(u.timer);
    u.timer = null;
    // A lost usage write costs a count, never a reply; the next one writes the totals again.
    const written = u.written
      .then(() => this.store.writeCounterState(file, u.rec))
      .catch(() => undefined)
      .then(() => {
        if (!u.timer && u.written === written && this.unsaved.get(file) === u) {
          this.unsaved.delete(file);
          this.records.set(file, Promise.resolve(u.rec));
        }
      });
    u.written = written;
  }
}
