import { GuildMember, MessageFlags, type RepliableInteraction } from 'discord.js';
import type { ConfigFile } from '../../config/schema';
import type { ChannelRef } from '../../memory/paths';
import { NO_PINGS } from '../discord/client';
import { placeAllowed } from '../intake/gate';
import { refOfChannel } from '../intake/refs';

/**
 * Who clicked a decision's button, submitted its form or ran a message command, and whether the
 * channel's rules let them: the allowlists of places and of members decide, as they do for the
 * messages the bot answers (gate.ts). secretary.ratify.role is ratify.ts's own check.
 */
export interface Clicker {
  ref: ChannelRef;
  id: string;
  /** The member's display name in the server. */
  name: string;
  roles: string[];
}

/** Pure: whether the allowlists let this member act here. */
export function clickAllowed(ref: ChannelRef, userId: string, roles: readonly string[], d: ConfigFile['discord']): boolean {
  if (ref.kind !== 'discord' || !placeAllowed(ref.guildId, ref.channelId, ref.threadId ?? null, d)) return false;
  return (!d.users.length && !d.roles.length) || d.users.includes(userId) || roles.some((r) => d.roles.includes(r));
}

/** The clicker, or null when the rules refuse them (they have been told, in a line only they see). */
export async function clickerOf(ix: RepliableInteraction, d: ConfigFile['discord']): Promise<Clicker | null> {
  const ref = ix.guildId ? refOfChannel(ix.guildId, ix.channel) : null;
  const m = ix.member;
  const roles = m && 'roles' in m ? (Array.isArray(m.roles) ? [...m.roles] : [...m.roles.cache.keys()]) : [];
  if (!ref || !clickAllowed(ref, ix.user.id, roles, d)) {
    await ix.reply({
      content: 'Minutes does not take decisions from you in this channel (its allowlists).',
      flags: MessageFlags.Ephemeral,
      allowedMentions: NO_PINGS,
    });
    return null;
  }
  const name = (m instanceof GuildMember ? m.displayName : undefined) ?? ix.user.globalName ?? ix.user.username;
  return { ref, id: ix.user.id, name, roles };
}

/** A one-line answer only the member sees, whether the interaction was deferred or not. */
export async function answerPrivately(ix: RepliableInteraction, text: string): Promise<void> {
  const body = { content: text.split('\n')[0].slice(0, 1900), allowedMentions: NO_PINGS };
  if (ix.deferred || ix.replied) await ix.editReply(body);
  else await ix.reply({ ...body, flags: MessageFlags.Ephemeral });
}

/** "no decision …" → "No decision …": a reason as the sentence that answers a click (an id like d-… stays as written). */
export function sentence(why: string): string {
  return /^[a-z]-[0-9a-f]/.test(why) ? `${why}.` : `${why.charAt(0).toUpperCase()}${why.slice(1)}.`;
}
