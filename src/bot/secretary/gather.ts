import { Collection, DiscordAPIError, Message, TextBasedChannel, RESTJSONErrorCodes, SendableChannels } from 'discord.js';
import type { PinOutcome, Poster, TranscriptMessage } from '../../condense/condensation/types';
import type { Logger } from '../../log/logger';
import { condensationMarkIn } from '../../shared/markers';
import { NO_PINGS } from '../discord/client';
import { decisionButtonRow } from './decisionButtons';

/** Discord returns at most 100 messages a page. */
const PAGE = 100;
/** A bound against runaway threads: far beyond any discussion a person would condense. */
const MAX_MESSAGES = 10_000;

type Fetchable = TextBasedChannel & { messages: { fetch(o: { limit: number; before?: string; after?: string }): Promise<Collection<string, Message>> } };

export function toTranscript(m: Message): TranscriptMessage {
  const files = [...m.attachments.values()].map((a) => a.name).filter(Boolean);
  const content = [m.content ?? '', files.length ? `(attached: ${files.join(', ')})` : ''].filter(Boolean).join('\n');
  return {
    id: m.id,
    authorId: m.author.id,
    authorName: m.member?.displayName ?? m.author.globalName ?? m.author.username,
    at: m.createdAt,
    content,
    isBot: m.author.bot,
  };
}

/** Every message of a thread (or channel), through the API, paginated, oldest first. */
export async function gatherAll(channel: TextBasedChannel): Promise<TranscriptMessage[]> {
  const ch = channel as Fetchable;
  const out: Message[] = [];
  let before: string | undefined;
  while (out.length < MAX_MESSAGES) {
    const page = await ch.messages.fetch({ limit: PAGE, ...(before ? { before } : {}) });
    if (!page.size) break;
    const sorted = [...page.values()].sort(bySnowflake);
    out.unshift(...sorted);
    before = sorted[0].id;
    if (page.size < PAGE) break;
  }
  return out.filter(isConversation).map(toTranscript);
}

/** The discussion in a channel from one message to now, oldest first. */
export async function gatherFrom(channel: TextBasedChannel, first: Message): Promise<TranscriptMessage[]> {
  const ch = channel as Fetchable;
  const out: Message[] = [first];
  let after = first.id;
  while (out.length < MAX_MESSAGES) {
    const page = await ch.messages.fetch({ limit: PAGE, after });
    if (!page.size) break;
    const sorted = [...page.values()].sort(bySnowflake);
    out.push(...sorted);
    after = sorted[sorted.length - 1].id;
    if (page.size < PAGE) break;
  }
  return out.filter(isConversation).map(toTranscript);
}

/** Snowflakes order messages exactly; two messages can share a millisecond timestamp. */
export function bySnowflake(a: { id: string }, b: { id: string }): number {
  return a.id.length - b.id.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** People's messages and replies; not Discord's system notices (pins, thread created, …). */
function isConversation(m: Message): boolean {
  return m.type === 0 || m.type === 19 || m.type === 21;
}

/**
 * Posts condensations in a channel (or inside a private thread or forum post) and pins them.
 * When the pins are full (Discord allows 250), the oldest condensation the bot pinned is unpinned;
 * a pin a person made is never touched.
 */
export function discordPoster(channel: SendableChannels, botId: string, logger: Logger): Poster {
  const manager = channel.messages;
  /** Every pinned message, newest pin first: pins come in pages (up to 50 by default). */
  const pinned = async (): Promise<Message[]> => {
    const out: Message[] = [];
    let before: Date | undefined;
    for (let page = 0; page < 10; page++) {
      const r = await manager.fetchPins({ limit: 50, ...(before ? { before } : {}) });
      out.push(...r.items.map((i) => i.message));
      if (!r.hasMore || !r.items.length) break;
      before = r.items[r.items.length - 1].pinnedAt;
    }
    return out;
  };
  const ch = channel as Fetchable;
  return {
    async findByMarker(marker) {
      // The mark is hidden in newer posts and a visible line in older ones: both are read.
      const hit = (m: Message) => m.author.id === botId && condensationMarkIn(m.content) === marker;
      // Silent on purpose: gone, or not visible to the bot: treated as absent.
      const pins = await pinned().catch(() => [] as Message[]);
      const fromPins = pins.find(hit);
      if (fromPins) return { messageId: fromPins.id };
      // Silent on purpose: gone, or not visible to the bot: treated as absent.
      const recent = await ch.messages.fetch({ limit: PAGE }).catch(() => null);
      const found = recent ? [...recent.values()].find(hit) : undefined;
      return found ? { messageId: found.id } : null;
    },
    async post(content, o) {
      // Confirm, Reopen and Supersede go on the post itself: their ids name its decision.
      const components = o?.decisionId ? [decisionButtonRow(o.decisionId)] : [];
      const m = await channel.send({ content, allowedMentions: NO_PINGS, components });
      return { messageId: m.id, url: m.url };
    },
    async pin(messageId) {
      const msg = await manager.fetch(messageId);
      if (msg.pinned) return 'already';
      try {
        await msg.pin();
        return 'pinned';
      } catch (err) {
        if (!(err instanceof DiscordAPIError)) throw err;
        if (err.code === RESTJSONErrorCodes.MissingPermissions || err.code === RESTJSONErrorCodes.MissingAccess) return 'not-allowed';
        if (err.code !== RESTJSONErrorCodes.MaximumNumberOfPinsReachedForTheChannel) throw err;
      }
      // Pins are full: make room by unpinning the bot's oldest condensation, never a person's pin.
      const ours = (await pinned()).filter((m) => m.author.id === botId && condensationMarkIn(m.content) !== undefined).sort(bySnowflake);
      const oldest = ours[0];
      if (!oldest) return 'full-none-ours' satisfies PinOutcome;
      await oldest.unpin();
      logger.info({ channel: channel.id, unpinned: oldest.id }, 'pins were full: unpinned the oldest condensation to make room');
      await msg.pin();
      return 'pinned';
    },
  };
}
