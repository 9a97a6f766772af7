import { Client, Message } from 'discord.js';
import type { Logger } from '../../log/logger';
import { driftLine } from '../../condense/observers/drift';
import type { DriftChecker } from '../../condense/observers/driftChecker';
import type { ChannelRef } from '../../memory/paths';
import { FewPerLoopTurn } from '../../shared/queue';
import { NO_PINGS } from '../discord/client';
import { InFlight } from '../intake/inFlight';
import { botMayPost } from '../discord/permissions';

/**
 * Drift notes on Discord: every person's message in a place the bot works is checked, off the reply
 * path (DriftChecker: a rule in code, then one small side call for the few that pass it), and a
 * contradiction of a decision in force gets one small line. A message to the bot gets it under the
 * bot's reply, when the reply has not gone yet (the reply sender takes it, `notesFor`); otherwise it
 * is one short message of its own. Nothing is checked where the bot may not post, nothing pings, and
 * `discord.driftNotes: false` turns it off.
 */

const CHECKS_PER_LOOP_TURN = 50;

/** Replies awaited at once (a bound: a reply that never comes must not keep its entry for ever). */
const MAX_AWAITED = 1_000;

export class DriftNotes {
  /** Messages to the bot whose reply has not been sent yet → the lines found for it so far. */
  private readonly awaited = new Map<string, string[]>();
  private readonly events: InFlight;
  /**
   * Checks start a few per turn of the event loop. The gateway reads a backlog in one go (libuv reads
   * a socket up to 32 times per poll), and every message's check inside those reads held back the
   * worker's finished turns, so the replies: under `bench:load` the gateway's thread stopped for up
   * to 0.9 s at the start of the burst.
   */
  private readonly pacing = new FewPerLoopTurn(CHECKS_PER_LOOP_TURN);

  constructor(
    private readonly o: {
      client: Client;
      /** `discord.driftNotes`: false turns drift notes off. */
      enabled: boolean;
      checker: DriftChecker;
      logger: Logger;
    },
  ) {
    this.events = new InFlight((err, event) => o.logger.error({ err, event }, 'drift note failed'));
  }

  async stop(): Promise<void> {
    await this.events.close();
  }

  /**
   * A person's message; `addressed` when the bot is about to answer it. Returns at once: the check
   * runs after the gateway's reads (see `pacing`), and whether the bot may post there is asked only
   * of a message that might contradict a decision (a permission is computed from every role and
   * overwrite: per message, a fifth of the bot's own work under `bench:load`).
   */
  observe(m: Message, ref: ChannelRef, addressed: boolean): void {
    if (!this.o.enabled || m.author.bot || m.system || !m.content.trim()) return;
    if (addressed) {
      this.awaited.set(m.id, []);
      if (this.awaited.size > MAX_AWAITED) this.awaited.delete(this.awaited.keys().next().value as string);
    }
    // As it was said (an edit patches the cached message).
    const msg = { authorName: m.member?.displayName ?? m.author.globalName ?? m.author.username, content: m.content };
    this.events.run('drift', async () => {
      await this.pacing.next();
      const found = await this.o.checker.check(ref, msg, { mayAct: () => botMayPost(this.o.client, m) });
      if (!found) return;
      const line = driftLine(found.decision, { link: found.link });
      this.o.logger.info({ message: m.id, decision: found.decision.id, why: found.why }, 'drift note');
      const waiting = this.awaited.get(m.id);
      if (waiting) {
        waiting.push(line);
        return;
      }
      const ch = m.channel;
      if (ch.isSendable()) await ch.send({ content: line, allowedMentions: NO_PINGS });
    });
  }

  /**
   * The reply to these messages is about to be sent: the lines found for them so far go under it; a
   * line found later is sent on its own.
   */
  notesFor(messageIds: string[]): string[] {
    const out: string[] = [];
    for (const id of messageIds) {
      out.push(...(this.awaited.get(id) ?? []));
      this.awaited.delete(id);
    }
    return out;
  }
}
