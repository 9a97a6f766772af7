import { setImmediate as yieldToEvents } from 'node:timers/promises';
import { statOrNull } from '../memory/dataFiles';
import { listConversations } from '../memory/dataRootIndex';
import { channelPaths, recallDirs } from '../memory/layout';
import type { ChannelRef } from '../memory/paths';
import type { RecallService } from '../recall/service';
import { warmUpModelPath } from '../llm/warmUp';
import type { Runtime } from './runtime';

/**
 * Conversations indexed at start, most recently active first. Recall keeps ~16 MB of indexes
 * (lexical.ts): a few thousand small channels, a few hundred busy ones; past that, indexing more
 * would only push out what was indexed first.
 */
export const WARM_UP_CONVERSATIONS = 500;

/**
 * After a start, builds recall's index of each served server's most recently active channels, in
 * the background and one channel at a time (turns run in between): the first message in each
 * channel after a restart then finds its index built instead of parsing its memory files while
 * others wait (under a burst across many channels, that parsing was most of a first turn).
 * Returns the conversations indexed, in the order they were.
 */
export async function warmUpRecall(o: {
  root: string;
  recall: Pick<RecallService, 'prebuild'>;
  /** The servers this process answers in (a shard's own). */
  guildIds: string[];
  max?: number;
}): Promise<ChannelRef[]> {
  const found: { ref: ChannelRef; activeAt: number }[] = [];
  // Only the served servers' folders are listed: another shard's channels are none of this one's.
  for (const { ref } of await listConversations(o.root, { guildIds: new Set(o.guildIds), channelsOnly: true })) {
    // The cold log is appended on every message: its time says when the channel last spoke.
    const st = await statOrNull(channelPaths(o.root, ref).log);
    found.push({ ref, activeAt: st?.mtimeMs ?? 0 });
  }
  const chosen = found.sort((a, b) => b.activeAt - a.activeAt).slice(0, o.max ?? WARM_UP_CONVERSATIONS);
  for (const { ref } of chosen) {
    await yieldToEvents();
    o.recall.prebuild(recallDirs(channelPaths(o.root, ref), o.root));
  }
  return chosen.map((c) => c.ref);
}

/** What `warmUp` does where the runtime is (this thread or the turn worker). */
export function warmUp(runtime: Pick<Runtime, 'recall' | 'store' | 'logger' | 'model'>, guildIds: string[]): void {
  warmUpModelPath(runtime.model.provider).catch((err) =>
    runtime.logger.debug({ err }, 'could not warm the model client up at start; the first call compiles it instead'),
  );
  runtime.recall.prepare();
  warmUpRecall({ root: runtime.store.root, recall: runtime.recall, guildIds }).catch((err) =>
    runtime.logger.warn({ err }, 'could not index the recent conversations at start; each is indexed at its first message instead'),
  );
}
