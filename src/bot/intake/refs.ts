import { ChannelType, TextBasedChannel } from 'discord.js';
import type { ChannelRef } from '../../memory/paths';

/**
 * The one mapping from a Discord channel to where its memory lives: a thread maps to its parent
 * channel plus its own id (private threads flagged, so their memory stays inside them).
 */
export function refOfChannel(guildId: string | null, ch: TextBasedChannel | null | undefined): ChannelRef | null {
  if (!guildId || !ch || ch.isDMBased()) return null;
  if (ch.isThread()) {
    if (!ch.parentId) return null;
    return { kind: 'discord', guildId, channelId: ch.parentId, threadId: ch.id, privateThread: ch.type === ChannelType.PrivateThread };
  }
  return { kind: 'discord', guildId, channelId: ch.id };
}
