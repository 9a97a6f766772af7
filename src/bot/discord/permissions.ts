import { Client, GuildBasedChannel, Message, PermissionFlagsBits, PermissionsBitField } from 'discord.js';

/** What the bot needs in a channel, with the name a person sees in Discord's settings. */
export const NEEDED: { flag: bigint; name: string; threadsOnly?: boolean }[] = [
  { flag: PermissionFlagsBits.ViewChannel, name: 'View Channel' },
  { flag: PermissionFlagsBits.SendMessages, name: 'Send Messages' },
  { flag: PermissionFlagsBits.ReadMessageHistory, name: 'Read Message History' },
  { flag: PermissionFlagsBits.SendMessagesInThreads, name: 'Send Messages in Threads', threadsOnly: true },
  { flag: PermissionFlagsBits.PinMessages, name: 'Pin Messages' },
];

/** Pure: the names of needed permissions the bot lacks. */
export function missingPermissions(perms: Readonly<PermissionsBitField> | null, inThread: boolean): string[] {
  if (!perms) return NEEDED.filter((n) => !n.threadsOnly || inThread).map((n) => n.name);
  return NEEDED.filter((n) => (!n.threadsOnly || inThread) && !perms.has(n.flag, true)).map((n) => n.name);
}

export function botPermissionsIn(channel: GuildBasedChannel): Readonly<PermissionsBitField> | null {
  const me = channel.guild.members.me;
  return me ? channel.permissionsFor(me) : null;
}

/** Whether the bot can still post in the channel to say what is missing. */
export function canSpeak(missing: string[], inThread: boolean): boolean {
  return !missing.includes('View Channel') && !missing.includes(inThread ? 'Send Messages in Threads' : 'Send Messages');
}

/** Whether the bot may post where this message was said (it can see the channel and send there). */
export function botMayPost(client: Client, m: Message): boolean {
  const me = client.user;
  const ch = m.channel;
  if (!me || ch.isDMBased() || !('permissionsFor' in ch)) return false;
  const perms = ch.permissionsFor(me);
  return Boolean(perms?.has([PermissionFlagsBits.ViewChannel, ch.isThread() ? PermissionFlagsBits.SendMessagesInThreads : PermissionFlagsBits.SendMessages]));
}
