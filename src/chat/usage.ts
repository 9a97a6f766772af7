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

/**
 * Usage kept in memory and written behind the reply: counting tokens must never slow an answer.
 * The store writes one file's versions in order, so the file always ends with the latest totals.
 */
export class UsageBook {
  private readonly records = new Map<string, Promise<UsageRecord>>();

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
    // A lost usage write costs a count, never a reply; the next one writes the totals again.
    this.store.writePrivateState(file, rec).catch(() => undefined);
  }

  read(ref: ChannelRef): Promise<UsageRecord> {
    return this.load(usageFile(this.store, ref)).then((r) => structuredClone(r));
  }

  private load(file: string): Promise<UsageRecord> {
    let r = this.records.get(file);
    if (!r) {
      r = this.store.readState(file, UsageRecord).then((x) => x ?? { version: 1, byModel: {} });
      this.records.set(file, r);
    }
    return r;
  }
}
