import { ChannelType, Events, type Client, type Guild } from 'discord.js';
import type { Logger } from '../../log/logger';
import { isSnowflake } from '../../memory/paths';
import type { ChannelStore } from '../../memory/store';
import { GuildNames } from '../../memory/namesFile';
import { namesFile } from '../../memory/layout';
import { ownsGuild, shardsOf } from '../shards/ownership';

/**
 * The human names the bot sees, for `minutes dashboard`: folders are ids only, so without this the
 * dashboard could show nothing but snowflakes. One small file per server,
 * `<root>/<guildId>/.minutes/names.json`, written atomically by the shard that owns the server at
 * start-up, on joining a server, and when a server or channel is created or renamed. Threads are
 * left out on purpose: a private thread's name is not for everyone who can see the server's list.
 * The file's shape is in memory/namesFile.ts.
 */
export interface SeenNames {
  guildId: string;
  guild?: string;
  channels: Array<{ id: string; name: string }>;
}

/** Merges these names into the server's file; writes only when something changed; never throws. */
export async function noteNames(store: ChannelStore, seen: SeenNames, log: Logger): Promise<void> {
  if (!isSnowflake(seen.guildId)) return;
  const file = namesFile(store.root, seen.guildId);
  try {
    // Read-merge-write per file in turn: two channel events at once must not lose one's name.
    await store.queue.run(file, async () => {
      const old = await store.readState(file, GuildNames);
      // Keys this version does not know are kept.
      const next: GuildNames = { ...old, version: 1, guild: seen.guild ?? old?.guild, channels: { ...(old?.channels ?? {}) } };
      for (const c of seen.channels) if (isSnowflake(c.id) && c.name) next.channels[c.id] = c.name;
      if (old && JSON.stringify({ ...old, version: 1 }) === JSON.stringify(next)) return;
      await store.writePrivateState(file, next);
    });
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'could not record server and channel names for the dashboard');
  }
}

function guildNames(g: Guild): SeenNames {
  const channels = [...g.channels.cache.values()].filter((c) => !c.isThread() && c.type !== ChannelType.GuildCategory).map((c) => ({ id: c.id, name: c.name }));
  return { guildId: g.id, guild: g.name, channels };
}

/** Keeps names.json current for the servers this shard owns. */
export function watchNames(client: Client, store: ChannelStore, log: Logger, run: (name: string, fn: () => Promise<void>) => void): void {
  const owned = (guildId: string): boolean => {
    const s = shardsOf(client);
    return ownsGuild(guildId, s.ids, s.count);
  };
  const guild = (g: Guild): void => {
    if (owned(g.id)) run('names', () => noteNames(store, guildNames(g), log));
  };
  client.once(Events.ClientReady, () => {
    for (const g of client.guilds.cache.values()) guild(g);
  });
  client.on(Events.GuildCreate, guild);
  client.on(Events.GuildUpdate, (_old, g) => guild(g));
  const channel = (c: { id: string; name: string; guildId: string; isThread(): boolean }): void => {
    if (c.isThread() || !owned(c.guildId)) return;
    run('names', () => noteNames(store, { guildId: c.guildId, channels: [{ id: c.id, name: c.name }] }, log));
  };
  client.on(Events.ChannelCreate, channel);
  client.on(Events.ChannelUpdate, (_old, c) => {
    if (!c.isDMBased()) channel(c);
  });
}
