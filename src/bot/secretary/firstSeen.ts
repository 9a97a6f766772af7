import { firstSeenFile } from '../../memory/layout';
import type { Client } from 'discord.js';
import { z } from 'zod';
import type { Logger } from '../../log/logger';
import { isSnowflake } from '../../memory/paths';
import type { ChannelStore } from '../../memory/store';
import { ownsGuild, shardsOf } from '../shards/ownership';

/**
 * When the bot first saw each server, recorded at start-up (and when it joins one). Automatic
 * condensations (archive, lock, resolved tag, the sweep) only consider discussions that ended while
 * the bot was there: that guards against flooding a server with condensations of old threads. It
 * used to count only from the bot's first answer in a channel, so a thread archived in a channel
 * where nobody had mentioned the bot was never condensed (issue 15). One small file per server,
 * `<root>/<guildId>/.minutes/first-seen.json`, written once by the shard that owns the server.
 */
const FirstSeen = z.looseObject({ version: z.literal(1), firstSeenAt: z.string() });
type FirstSeen = z.infer<typeof FirstSeen>;

/** Records the servers this shard owns that have no record yet; a failure is logged, never thrown. */
export async function noteServersSeen(client: Client, store: ChannelStore, guildIds: string[], now: Date, log: Logger): Promise<void> {
  const shards = shardsOf(client);
  try {
    for (const id of guildIds) {
      if (!isSnowflake(id) || !ownsGuild(id, shards.ids, shards.count)) continue;
      const file = firstSeenFile(store.root, id);
      if ((await store.readState(file, FirstSeen))?.firstSeenAt) continue;
      await store.writePrivateState(file, { version: 1, firstSeenAt: now.toISOString() } satisfies FirstSeen);
    }
  } catch (err) {
    log.warn({ err }, 'could not record when the bot first saw its servers; check the data root');
  }
}

export async function serverFirstSeen(store: ChannelStore, guildId: string): Promise<Date | undefined> {
  if (!isSnowflake(guildId)) return undefined;
  const at = (await store.readState(firstSeenFile(store.root, guildId), FirstSeen))?.firstSeenAt;
  const d = at ? new Date(at) : undefined;
  return d && !Number.isNaN(d.getTime()) ? d : undefined;
}

/** Since when the bot has been in a channel: the earlier of its server's sighting and its ledger's first run. */
export async function botThereSince(store: ChannelStore, guildId: string, ledgerFirstRun: string | undefined): Promise<Date | undefined> {
  const serverSeen = await serverFirstSeen(store, guildId);
  const times = [ledgerFirstRun ? Date.parse(ledgerFirstRun) : NaN, serverSeen?.getTime() ?? NaN].filter((t) => Number.isFinite(t));
  return times.length ? new Date(Math.min(...times)) : undefined;
}
