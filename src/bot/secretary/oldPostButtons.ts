import { Client, DiscordAPIError, RESTJSONErrorCodes } from 'discord.js';
import { currentDecisions, type ContextData } from '../../condense/knowledge/contextData';
import { readContext } from '../../condense/knowledge/contextFiles';
import { mutateLedger, readLedger, skipIfMalformed } from '../../condense/saga/ledgerFile';
import type { Ledger, PostButtons } from '../../condense/saga/ledgerSchema';
import type { Logger } from '../../log/logger';
import type { ChannelRef } from '../../memory/paths';
import type { ChannelStore } from '../../memory/store';
import { decisionButtonRow } from './decisionButtons';

/**
 * Condensations posted before the posts carried Confirm, Reopen and Supersede: the bot edits each
 * such post once to add them, so decisions made before then can be confirmed too. The ledger says
 * where each post is and records that it was done (postButtons), so a restart edits nothing again.
 */

/** One post edited per this interval: 4 a minute, never a burst of edits beside replies. */
const OLD_BUTTONS_EDIT_GAP_MS = 15_000;
/** One post read (to see whether it needs the edit) per this interval, as the sweep reads archives. */
const READ_GAP_MS = 500;
/** Waiting for a quiet bot gives up after this, then the edit goes ahead at its paced rate. */
const QUIET_MAX_WAIT_MS = 60_000;

export interface OldPost {
  key: string;
  decisionId: string;
  messageId: string;
  /** The channel (or private thread) the post is in. */
  channelId: string;
}

/**
 * Pure: the posts of decisions still in force that were never given their buttons nor looked at.
 * A discussion that reached no decision has no decision in force, so its post gets none (as new ones).
 */
export function postsWithoutButtons(ledger: Ledger, context: ContextData, fallbackChannelId: string): OldPost[] {
  const inForce = new Set(currentDecisions(context).map((d) => d.id));
  const out: OldPost[] = [];
  for (const e of Object.values(ledger.entries)) {
    const posted = e.steps.posted;
    if (e.status !== 'done' || e.postButtons || typeof posted !== 'object' || !inForce.has(e.decisionId)) continue;
    out.push({ key: e.key, decisionId: e.decisionId, messageId: posted.messageId, channelId: channelOfPost(posted.url) ?? fallbackChannelId });
  }
  return out.sort((a, b) => a.messageId.length - b.messageId.length || (a.messageId < b.messageId ? -1 : 1));
}

/** The channel id in a message link (https://discord.com/channels/<guild>/<channel>/<message>). */
function channelOfPost(url: string | undefined): string | undefined {
  return url?.match(/\/channels\/\d+\/(\d+)\/\d+$/)?.[1];
}

export interface OldPostButtonsOptions {
  client: Client;
  store: ChannelStore;
  log: Logger;
  /** The channel folders this process owns. */
  refs(): Promise<ChannelRef[]>;
  closing(): boolean;
  /** Resolves when the bot has had no answer or send in flight for a moment, or after `maxWaitMs`. */
  quiet(maxWaitMs: number): Promise<void>;
}

export class OldPostButtons {
  private lastRead = -Infinity;
  private lastEdit = -Infinity;
  private running: Promise<number> | undefined;

  constructor(private readonly o: OldPostButtonsOptions) {}

  /** Gives every old post its buttons, paced; the start-up and periodic runs never go side by side. */
  run(): Promise<number> {
    this.running ??= this.runOnce().finally(() => (this.running = undefined));
    return this.running;
  }

  private async runOnce(): Promise<number> {
    let added = 0;
    for (const ref of await this.o.refs()) {
      if (ref.kind !== 'discord') continue;
      const ledger = await skipIfMalformed(() => readLedger(this.o.store, ref), null);
      const context = ledger && (await skipIfMalformed(() => readContext(this.o.store, ref), null));
      if (!ledger || !context) continue;
      for (const post of postsWithoutButtons(ledger, context, ref.threadId ?? ref.channelId)) {
        if (!(await this.pace('read'))) return added;
        const outcome = await this.give(post);
        if (this.o.closing() && !outcome) return added;
        if (!outcome) continue;
        if (outcome === 'added') added++;
        await mutateLedger(this.o.store, ref, (l) => {
          const e = l.entries[post.key];
          if (e) e.postButtons = outcome;
        });
      }
    }
    if (added) this.o.log.info({ posts: added }, 'gave older condensation posts their Confirm, Reopen and Supersede buttons');
    return added;
  }

  /** What became of one post; undefined when Discord could not be asked now (the next run tries again). */
  private async give(post: OldPost): Promise<PostButtons | undefined> {
    try {
      const channel = await this.o.client.channels.fetch(post.channelId);
      if (!channel?.isTextBased()) return 'gone';
      const msg = await channel.messages.fetch({ message: post.messageId, force: true });
      if (msg.author.id !== this.o.client.user?.id) return 'not-ours';
      // A post that has components already (this version made it, or a person's edit): left as it is.
      if (msg.components.length) return 'had';
      if (!(await this.pace('edit'))) return undefined;
      await msg.edit({ components: [decisionButtonRow(post.decisionId)] });
      return 'added';
    } catch (err) {
      if (err instanceof DiscordAPIError && err.code === RESTJSONErrorCodes.CannotEditMessageAuthoredByAnotherUser) return 'not-ours';
      // Not visible to the bot now (a permission may come back): quietly left for the next run.
      if (err instanceof DiscordAPIError && err.status === 403) return undefined;
      // Gone, or not editable by the bot: a 4xx says so for good; skipped quietly.
      if (err instanceof DiscordAPIError && err.status >= 400 && err.status < 500) return 'gone';
      this.o.log.warn({ err, message: post.messageId }, 'could not give an older condensation post its buttons; the next run tries again');
      return undefined;
    }
  }

  /** Waits for a quiet bot and for the gap since the last read or edit; false when the bot is stopping. */
  private async pace(kind: 'read' | 'edit'): Promise<boolean> {
    await this.o.quiet(QUIET_MAX_WAIT_MS);
    const since = kind === 'read' ? this.lastRead : this.lastEdit;
    const until = since + (kind === 'read' ? READ_GAP_MS : OLD_BUTTONS_EDIT_GAP_MS);
    // In short steps: stopping the bot never waits out a whole gap.
    while (!this.o.closing() && performance.now() < until) {
      await new Promise<void>((resolve) => setTimeout(resolve, Math.min(250, until - performance.now())).unref());
    }
    if (this.o.closing()) return false;
    if (kind === 'read') this.lastRead = performance.now();
    else this.lastEdit = performance.now();
    return true;
  }
}
