import type { Client, Collection, Message } from 'discord.js';
import type { LogRecord } from '../../chat/conversation';
import { openMentions, snowflakeOrder } from '../../chat/openMentions';
import type { ConfigFile } from '../../config/schema';
import type { Logger } from '../../log/logger';
import { parsedJsonLines } from '../../shared/jsonLines';
import { readTailText } from '../../memory/dataFiles';
import type { ChannelRef } from '../../memory/paths';
import { refLabel } from '../../memory/paths';
import { type ConversationFolder, conversationFolders } from '../../memory/serverFolders';
import type { ChannelStore } from '../../memory/store';
import type { MinutesBot } from './bot';
import { NO_PINGS } from '../discord/client';
import { placeAllowed } from './gate';
import type { ReplyChannel } from './replies';
import { refOfChannel } from './refs';

/**
 * How much of a conversation's log is read to find what is still owed: the owed messages are the
 * newest ones, and 256 kB holds about a thousand records, so a grown channel's log is never read
 * whole (a start reads this much of every served conversation's log, one after another).
 */
const LOG_TAIL_BYTES = 256 * 1024;

type MessageRecord = Extract<LogRecord, { type: 'message' }>;

export interface CatchUpOptions {
  client: Client;
  store: ChannelStore;
  bot: Pick<MinutesBot, 'catchUpMessage' | 'resumeLogged' | 'hasReceived' | 'catchUpTogether'>;
  appendLog(ref: ChannelRef, record: LogRecord): Promise<void>;
  discord: ConfigFile['discord'];
  logger: Logger;
  clock: () => Date;
}

/**
 * After a start, and after a reconnect that lost events, each served conversation is brought up to
 * date: what its log says is still owed a reply (received before a crash, never answered) and what
 * Discord's history holds that the bot never saw (sent while it was down), within
 * `discord.catchUp`, are handled in order, once. A reply Discord already shows (sent just before a
 * crash) settles what it answered. Older mentions are not answered; the channel is told, in one line.
 */
export class CatchUp {
  constructor(private readonly o: CatchUpOptions) {}

  /** The served servers' conversations, one at a time (each costs at most one history read). */
  async run(guildIds: string[]): Promise<void> {
    for (const guildId of guildIds) {
      for (const f of await conversationFolders(this.o.store.root, guildId)) {
        if (!placeAllowed(guildId, f.channelId, f.threadId ?? null, this.o.discord)) continue;
        try {
          await this.conversation(guildId, f);
        } catch (err) {
          this.o.logger.warn(
            { guild: guildId, channel: f.threadId ?? f.channelId, err },
            'could not catch up on this conversation; its missed messages wait for the next start',
          );
        }
      }
    }
  }

  private async conversation(guildId: string, f: ConversationFolder): Promise<void> {
    const { client, store, clock } = this.o;
    // The log's path depends only on the folder's ids, so what is owed is known before Discord is asked.
    const text = await readTailText(store.paths({ kind: 'discord', guildId, channelId: f.channelId, threadId: f.threadId }).log, LOG_TAIL_BYTES);
    const owed = openMentions(text ? parsedJsonLines(text) : []);
    if (!owed.lastSeenId) return;
    // Channels and active threads arrive with the server; a thread not among them is archived (a new
    // message would have brought it back), so it is asked for only when its log still owes a reply:
    // a start with thousands of old thread folders makes no request for them.
    const id = f.threadId ?? f.channelId;
    // Silent on purpose: a channel gone or hidden from the bot has nothing to catch up on.
    const channel = client.channels.cache.get(id) ?? (owed.open.length ? await client.channels.fetch(id).catch(() => null) : null);
    if (!channel || !channel.isTextBased() || channel.isDMBased()) return;
    const ref = refOfChannel(guildId, channel);
    if (!ref) return;
    // Nothing owed and nothing newer on Discord than what the log saw: no history read at all.
    if (!owed.open.length && channel.lastMessageId && snowflakeOrder(channel.lastMessageId, owed.lastSeenId) <= 0) return;
    const now = clock().getTime();
    const floorMs = now - this.o.discord.catchUp.maxAgeMinutes * 60_000;
    const since = owed.open.length ? owed.open[0].id : owed.lastSeenId;
    const history = await this.history(channel, ref, since);
    if (!history) return;
    const botId = client.user?.id;
    // A reply the bot sent answers every message up to the one it replies to (a turn takes all that waited).
    const answeredUpTo = history
      .filter((m) => m.author.id === botId && m.reference?.messageId)
      .map((m) => m.reference!.messageId!)
      .reduce<string | null>((a, b) => (a && snowflakeOrder(a, b) >= 0 ? a : b), null);
    const isAnswered = (id: string) => answeredUpTo !== null && snowflakeOrder(id, answeredUpTo) <= 0;
    const settle = (ids: string[], how: 'seen' | 'too-old') =>
      ids.length ? this.o.appendLog(ref, { type: 'answered', at: clock().toISOString(), ids, how }) : Promise.resolve();

    const open = owed.open.filter((m) => !isAnswered(m.id));
    await settle(
      owed.open.filter((m) => isAnswered(m.id)).map((m) => m.id),
      'seen',
    );
    const tooOld = open.filter((m) => Date.parse(m.at) < floorMs);
    await settle(
      tooOld.map((m) => m.id),
      'too-old',
    );
    const owedIds = new Set(open.filter((m) => !tooOld.includes(m)).map((m) => m.id));
    const contextIds = new Set(owed.context.map((m) => m.id));
    const fromDiscord = new Map(history.filter((m) => m.author.id !== botId && !isAnswered(m.id)).map((m) => [m.id, m]));
    const missedOld = [...fromDiscord.values()]
      .filter((m) => !owed.logged.has(m.id) && m.createdTimestamp < floorMs && !m.author.bot && botId && m.mentions.users.has(botId))
      .map((m) => m.id);
    await settle(missedOld, 'too-old');

    // In id order: what Discord returns (its latest words), else the log's record of it.
    const records = new Map<string, MessageRecord>([...owed.context, ...open].filter((m) => owedIds.has(m.id) || contextIds.has(m.id)).map((m) => [m.id, m]));
    const ids = [...new Set([...records.keys(), ...fromDiscord.keys()])].sort(snowflakeOrder);
    let handled = 0;
    // Synchronously, so they reach the conversation's inbox together and in order.
    this.o.bot.catchUpTogether(ref, () => {
      for (const id of ids) {
        if (this.o.bot.hasReceived(id)) continue;
        const m = fromDiscord.get(id);
        const logged = owed.logged.has(id);
        if (m) {
          if (logged && !owedIds.has(id) && !contextIds.has(id)) continue;
          if (!logged && m.createdTimestamp < floorMs) continue;
          handled++;
          this.o.bot.catchUpMessage(m, logged);
        } else if (records.has(id)) {
          handled++;
          this.o.bot.resumeLogged(ref, channel, records.get(id)!);
        }
      }
    });
    const notAnswered = tooOld.length + missedOld.length;
    if (handled || notAnswered) this.o.logger.info({ channel: refLabel(ref), handled, notAnswered }, 'caught up on messages missed while the bot was away');
    if (notAnswered) await this.tellTooOld(channel, ref, notAnswered);
  }

  /** The conversation's newest messages after `since` (inclusive), oldest first; null when Discord would not give them. */
  private async history(channel: ReplyChannel, ref: ChannelRef, since: string): Promise<Message[] | null> {
    const limit = this.o.discord.catchUp.maxMessages;
    try {
      // The newest page, not the oldest after `since`: when more was missed than one page holds,
      // the latest messages are the ones still worth an answer.
      const page: Collection<string, Message> = await channel.messages.fetch({ limit, cache: false });
      return [...page.values()].filter((m) => snowflakeOrder(m.id, since) >= 0).sort((a, b) => snowflakeOrder(a.id, b.id));
    } catch (err) {
      this.o.logger.warn(
        { channel: refLabel(ref), err },
        'could not read this channel’s history to catch up (the bot needs Read Message History there); messages missed while it was away are not answered',
      );
      return null;
    }
  }

  private async tellTooOld(channel: ReplyChannel, ref: ChannelRef, count: number): Promise<void> {
    if (!('send' in channel)) return;
    const minutes = this.o.discord.catchUp.maxAgeMinutes;
    const content = `I was away: ${count} message${count === 1 ? '' : 's'} to me from more than ${minutes} minutes ago ${count === 1 ? 'was' : 'were'} not answered (nor any "remember that" in ${count === 1 ? 'it' : 'them'}). Mention me again if you still need ${count === 1 ? 'it' : 'them'}.`;
    await channel
      .send({ content, allowedMentions: NO_PINGS })
      .catch((err: unknown) => this.o.logger.warn({ channel: refLabel(ref), err }, 'could not say which messages were missed'));
  }
}
