import { Client, GatewayIntentBits, Partials, type ClientOptions } from 'discord.js';
import type { ShardSet } from '../shards/ownership';

/**
 * The discord.js client. MessageContent is privileged: without it mentions arrive with empty
 * content. Partials let reactions on uncached messages and events in uncached channels through.
 * allowedMentions here is the default for every send: the bot never pings anyone.
 * `shards` is left unset in production: discord.js then takes SHARDS/SHARD_COUNT from the sharding
 * manager's environment, and setting it here would make every shard process claim the same shards.
 */
export function createDiscordClient(o: {
  apiUrl: string;
  shards?: ShardSet;
  /** One REST request's limit, without retries (the doctor's quick check); discord.js defaults otherwise. */
  restTimeoutMs?: number;
  /** Identify turns taken elsewhere (identifyQueue.ts, through Redis) instead of discord.js's per-process throttle. */
  buildIdentifyThrottler?: NonNullable<ClientOptions['ws']>['buildIdentifyThrottler'];
}): Client {
  return new Client({
    ...(o.shards ? { shards: [...o.shards.ids], shardCount: o.shards.count } : {}),
    ...(o.buildIdentifyThrottler ? { ws: { buildIdentifyThrottler: o.buildIdentifyThrottler } } : {}),
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.GuildMessageReactions],
    partials: [Partials.Message, Partials.Channel, Partials.Reaction, Partials.User, Partials.GuildMember, Partials.ThreadMember],
    allowedMentions: { parse: [], repliedUser: false },
    rest: { api: o.apiUrl, ...(o.restTimeoutMs ? { timeout: o.restTimeoutMs, retries: 0 } : {}) },
  });
}

/** Mentions that ping nobody, whatever the text says (@everyone, users, roles). */
export const NO_PINGS = { parse: [] as never[], users: [] as string[], roles: [] as string[], repliedUser: false };
