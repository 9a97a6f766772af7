import { Client, GatewayIntentBits, Partials } from 'discord.js';

/**
 * The discord.js client. MessageContent is privileged: without it mentions arrive with empty
 * content. Partials let reactions on uncached messages and events in uncached channels through.
 * allowedMentions here is the default for every send: the bot never pings anyone.
 */
export function createDiscordClient(o: { apiUrl: string }): Client {
  return new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.GuildMessageReactions,
    ],
    partials: [Partials.Message, Partials.Channel, Partials.Reaction, Partials.User, Partials.GuildMember, Partials.ThreadMember],
    allowedMentions: { parse: [], repliedUser: false },
    rest: { api: o.apiUrl },
  });
}

/** Mentions that ping nobody, whatever the text says (@everyone, users, roles). */
export const NO_PINGS = { parse: [] as never[], users: [] as string[], roles: [] as string[], repliedUser: false };
