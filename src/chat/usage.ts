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

export async function recordUsage(
  store: ChannelStore, ref: ChannelRef, model: string, purpose: 'chat' | 'side', u: Usage, at: Date,
): Promise<void> {
  const file = usageFile(store, ref);
  const rec = (await store.readState<UsageRecord>(file)) ?? { version: 1, byModel: {} };
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
  await store.writeState(ref, file, rec);
}

export async function readUsage(store: ChannelStore, ref: ChannelRef): Promise<UsageRecord> {
  return (await store.readState<UsageRecord>(usageFile(store, ref))) ?? { version: 1, byModel: {} };
}
