import { ChannelType, Client } from 'discord.js';
import { autoGate } from '../../condense/saga/gate';
import { lastCondensedMessageId } from '../../condense/saga/ledgerQueries';
import { readLedger, skipIfMalformed } from '../../condense/saga/ledgerFile';
import { humanMessages, messagesSince } from '../../condense/condensation/transcript';
import type { ChannelRef } from '../../memory/paths';
import type { ChannelStore } from '../../memory/store';
import { botThereSince } from './firstSeen';
import { takeJsonlQueue } from '../../memory/jsonlQueue';
import { gatherAll } from './gather';
import { placeAllowed } from '../intake/gate';
import type { ConfigFile } from '../../config/schema';
import { ownsGuild, shardsOf } from '../shards/ownership';

/** A resolved or archived thread with enough discussion and no condensation of it. */
export interface MissingCondensation {
  guildId: string;
  channelId: string;
  threadId: string;
  name: string;
}

/** Archived threads looked at per channel: recent ones; older history is the sweep's past. */
const LOOKBACK = 50;

/** The Discord part of the audit: threads in channels the bot works in. */
export async function findMissingCondensations(client: Client<true>, store: ChannelStore, allow?: ConfigFile['discord']): Promise<MissingCondensation[]> {
  const out: MissingCondensation[] = [];
  const shards = shardsOf(client);
  for (const guild of client.guilds.cache.values()) {
    // Only this shard's guilds are cached, but the check keeps this true whatever fills the cache.
    if (!ownsGuild(guild.id, shards.ids, shards.count)) continue;
    for (const ch of guild.channels.cache.values()) {
      if (ch.type !== ChannelType.GuildText && ch.type !== ChannelType.GuildForum) continue;
      if (allow && !placeAllowed(guild.id, ch.id, null, allow)) continue;
      const ref: ChannelRef = { kind: 'discord', guildId: guild.id, channelId: ch.id };
      const ledger = await skipIfMalformed(() => readLedger(store, ref), null);
      const there = ledger && (await botThereSince(store, guild.id, ledger.firstRunAt));
      if (!ledger || !there) continue;
      // Silent on purpose: gone, or not visible to the bot: treated as absent.
      const archived = await ch.threads.fetchArchived({ limit: LOOKBACK }).catch(() => null);
      for (const thread of archived?.threads.values() ?? []) {
        // Silent on purpose: gone, or not visible to the bot: treated as absent.
        const messages = await gatherAll(thread).catch(() => []);
        const since = messagesSince(humanMessages(messages), lastCondensedMessageId(ledger, thread.id));
        const verdict = autoGate({ humanSinceLast: since, archivedAt: thread.archivedAt ?? undefined, botFirstRanAt: there });
        if (verdict.ok) out.push({ guildId: guild.id, channelId: ch.id, threadId: thread.id, name: thread.name });
      }
    }
  }
  return out;
}

/** `audit --fix` queues them; the running bot condenses queued threads on its next sweep. */
export function queueFile(store: ChannelStore, ref: ChannelRef): string {
  return store.paths(ref).condenseQueue;
}

/**
 * Takes the threads `minutes audit --fix` queued, with the taken file to remove once they are done.
 * Taken by renaming, not read-then-delete: a line `minutes audit --fix` appends meanwhile goes to a
 * new queue file instead of being deleted unread. The taken file is removed only once its threads
 * are done, so a crash leaves it to be taken again (a finished thread reports "already").
 */
export async function takeQueuedThreads(store: ChannelStore, ref: ChannelRef): Promise<{ ids: Set<string>; taken: string }> {
  const { records: all, taken } = await takeJsonlQueue(queueFile(store, ref));
  // A torn line (or one that is not a record) is skipped.
  const records = all.filter((r): r is { threadId: string } => typeof r === 'object' && r !== null);
  return { ids: new Set(records.map((r) => r.threadId)), taken };
}
