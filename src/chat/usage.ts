import path from 'node:path';
import type { Usage } from '../llm/types';
import type { ChannelRef } from '../memory/paths';
import type { ChannelStore } from '../memory/store';

/** Token usage per conversation and model, for /status and the cache benchmark. */
export interface UsageRecord {
  version: 1;
  byModel: Record<string, Usage & { calls: number; purpose: 'chat' | 'side' }>;
  updatedAt?: string;
}

export function usageFile(store: ChannelStore, ref: ChannelRef): string {
  return path.join(store.paths(ref).stateDir, 'usage.json');
}

/**
 * Usage kept in memory and written behind the reply: counting tokens must never slow an answer.
 * Writes of one file are chained, so the file always holds the latest totals.
 */
export class UsageBook {
  private readonly records = new Map<string, Promise<UsageRecord>>();
  private readonly writes = new Map<string, Promise<void>>();

  constructor(private readonly store: ChannelStore) {}

  async add(ref: ChannelRef, model: string, purpose: 'chat' | 'side', u: Usage, at: Date): Promise<void> {
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
    const snapshot = structuredClone(rec);
    const prev = this.writes.get(file) ?? Promise.resolve();
    const next = prev.then(() => this.store.writePrivateState(file, snapshot)).catch(() => undefined);
    this.writes.set(file, next);
  }

  read(ref: ChannelRef): Promise<UsageRecord> {
    return this.load(usageFile(this.store, ref)).then((r) => structuredClone(r));
  }

  /** Every pending write done (shutdown, tests). */
  async flush(): Promise<void> {
    await Promise.all([...this.writes.values()]);
  }

  private load(file: string): Promise<UsageRecord> {
    let r = this.records.get(file);
    if (!r) {
      r = this.store.readState<UsageRecord>(file).then((x) => (x?.version === 1 ? x : { version: 1, byModel: {} }));
      this.records.set(file, r);
    }
    return r;
  }
}
