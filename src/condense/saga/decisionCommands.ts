import type { Asker } from '../../chat/commandRegistry';
import { readTailText } from '../../memory/dataFiles';
import type { ChannelRef } from '../../memory/paths';
import type { ChannelStore } from '../../memory/store';
import { MalformedStateError } from '../../memory/storeErrors';
import { parsedJsonLines } from '../../shared/jsonLines';
import { readContext } from '../knowledge/contextFiles';
import { parseDay } from '../knowledge/decisionsAsOf';
import { readLedger } from './ledgerFile';
import { catchUpText, decisionsAtText, postLinks } from './whatChanged';

/**
 * `/decisions at:<YYYY-MM-DD>` and `/catchup`, read from a channel's files (whatChanged.ts says
 * what they answer). The member's last message is looked up in the tail of the conversation's
 * log.jsonl: a member who spoke only long ago is told the log does not reach that far back.
 */
const LOG_TAIL_BYTES = 4 * 1024 * 1024;

export class DecisionCommands {
  constructor(private readonly o: { store: ChannelStore; clock: () => Date }) {}

  async decisionsAt(ref: ChannelRef, at: string | null): Promise<string> {
    const day = at?.trim() ? parseDay(at) : { day: this.o.clock().toISOString().slice(0, 10) };
    if ('problem' in day) return `${day.problem.charAt(0).toUpperCase()}${day.problem.slice(1)}.`;
    return this.readable(async () => decisionsAtText(await readContext(this.o.store, ref), day.day, postLinks(await readLedger(this.o.store, ref))));
  }

  async catchup(ref: ChannelRef, asker: Asker): Promise<string> {
    if (!asker.userId) return '/catchup needs to know who you are: it works on Discord.';
    const since = await this.lastSpoke(ref, asker.userId);
    if (!since)
      return "I have no message of yours in this channel's log (or it is older than the part I read): /decisions shows the decisions in force, /actions and /questions what is open.";
    return this.readable(async () =>
      catchUpText({ data: await readContext(this.o.store, ref), ledger: await readLedger(this.o.store, ref), userId: asker.userId!, since }),
    );
  }

  /** When the member last spoke in the conversation (ISO), from its log. */
  private async lastSpoke(ref: ChannelRef, userId: string): Promise<string | undefined> {
    const text = await readTailText(this.o.store.paths(ref).log, LOG_TAIL_BYTES);
    let last: string | undefined;
    for (const r of parsedJsonLines(text ?? '')) {
      const m = r as { type?: unknown; author?: { id?: unknown }; at?: unknown };
      if (m.type === 'message' && m.author?.id === userId && typeof m.at === 'string' && (!last || m.at > last)) last = m.at;
    }
    return last;
  }

  private async readable(work: () => Promise<string>): Promise<string> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof MalformedStateError) return `Cannot read this channel's decisions: ${err.message}.`;
      throw err;
    }
  }
}
