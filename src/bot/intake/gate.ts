import type { ConfigFile } from '../../config/schema';

/** The facts about a message that decide whether the bot answers it. */
export interface MessageFacts {
  inGuild: boolean;
  authorIsBot: boolean;
  authorId: string;
  guildId: string | null;
  /** The channel the conversation belongs to: a thread's parent for threads. */
  channelId: string;
  threadId: string | null;
  roleIds: string[];
  mentionsBot: boolean;
  repliesToBot: boolean;
}

export type GateDecision = 'answer' | 'note' | 'ignore';

/**
 * Pure: answer an @mention or a reply to the bot, every message in always-on channels; note
 * (keep as context for the next answer) other human messages in allowed channels; ignore DMs,
 * bots (itself included) and anything outside the allowlists. Threads inherit their parent's settings.
 */
export function decide(f: MessageFacts, d: ConfigFile['discord']): GateDecision {
  if (!f.inGuild || !f.guildId || f.authorIsBot) return 'ignore';
  if (!placeAllowed(f.guildId, f.channelId, f.threadId, d)) return 'ignore';
  const userAllowed = (!d.users.length && !d.roles.length) || d.users.includes(f.authorId) || f.roleIds.some((r) => d.roles.includes(r));
  if (!userAllowed) return 'note';
  if (f.mentionsBot || f.repliesToBot) return 'answer';
  if (d.alwaysOnChannels.includes(f.channelId)) return 'answer';
  return 'note';
}

/** Pure: whether the allowlists let the bot work in this place at all (for commands and reactions too). */
export function placeAllowed(guildId: string, channelId: string, threadId: string | null, d: ConfigFile['discord']): boolean {
  if (d.guilds.length && !d.guilds.includes(guildId)) return false;
  if (d.channels.length && !d.channels.includes(channelId) && !(threadId && d.channels.includes(threadId))) return false;
  return true;
}
