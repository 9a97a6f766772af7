import { ChatInputCommandInteraction } from 'discord.js';
import { listCondensations } from '../../condense/saga/listing';
import type { Logger } from '../../log/logger';
import type { ChannelStore } from '../../memory/store';
import { ChannelRef } from '../../memory/paths';
import { gatherAll } from './gather';
import type { SecretaryCommands } from '../commands/slash';
import { describeCondensation, DiscordCondenser } from './discordCondenser';

/** A channel's /condense reads at most this many of its latest messages (a thread is read whole). */
const CHANNEL_CONDENSE_MESSAGES = 100;
/** /resolve archives only after its answer is on the way: an archived thread takes no replies. */
const ARCHIVE_AFTER_ANSWER_MS = 1500;

/** /condense, /resolve and /condensations: each answers with one message for the person who asked. */
export class SecretarySlashCommands implements Pick<SecretaryCommands, 'condense' | 'resolve' | 'list'> {
  constructor(
    private readonly o: {
      /** Where /condensations finds a channel's condensation files. */
      store: ChannelStore;
      logger: Logger;
      condenser: DiscordCondenser;
    },
  ) {}

  async condense(ix: ChatInputCommandInteraction, ref: ChannelRef, topic: string | null): Promise<string> {
    const ch = ix.channel;
    if (!ch) return 'I cannot see this channel.';
    const { condenser } = this.o;
    if (ch.isThread()) return describeCondensation(await condenser.condenseThread(ch, 'explicit', topic ?? undefined));
    if (!ch.isSendable()) return 'I cannot post in this channel, so I cannot condense here.';
    const recent = await gatherAll(ch).then((all) => all.slice(-CHANNEL_CONDENSE_MESSAGES));
    if (!recent.length) return 'There is no discussion here to condense yet.';
    return describeCondensation(await condenser.condenseMessages(ch, ref, recent, 'explicit', topic ?? undefined));
  }

  async resolve(ix: ChatInputCommandInteraction, _ref: ChannelRef): Promise<string> {
    const ch = ix.channel;
    if (!ch?.isThread()) return '/resolve works in a thread: it condenses the thread, then archives it.';
    const text = describeCondensation(await this.o.condenser.condenseThread(ch, 'explicit'));
    setTimeout(() => {
      void ch.setArchived(true, 'resolved with /resolve').catch((err) => this.o.logger.warn({ err }, 'could not archive the thread'));
    }, ARCHIVE_AFTER_ANSWER_MS).unref();
    return `${text}\nArchiving this thread.`;
  }

  list(ref: ChannelRef): Promise<string> {
    return listCondensations(this.o.store.paths(ref).condensations);
  }
}
