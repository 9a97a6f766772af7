import type { ChannelRef } from '../../memory/paths';
import { ChannelStore } from '../../memory/store';
import { mutateLedger, readLedger } from './ledgerFile';

/**
 * Records when the Secretary first saw this channel and returns it: automatic triggers ignore
 * threads archived before that moment. The bot calls it on its first message there only while the
 * server has no first-seen record (that one is earlier, and triggers count from the earlier).
 */
export async function ensureFirstRun(store: ChannelStore, ref: ChannelRef, now: Date): Promise<Date> {
  const l = await readLedger(store, ref);
  if (l.firstRunAt) return new Date(l.firstRunAt);
  const at = await mutateLedger(store, ref, (x) => (x.firstRunAt ??= now.toISOString()));
  return new Date(at);
}
