import { ButtonInteraction, Client, MessageFlags, ModalSubmitInteraction, type SendableChannels } from 'discord.js';
import type { ContextDecision } from '../../condense/knowledge/contextData';
import { readContext } from '../../condense/knowledge/contextFiles';
import { decisionStatus, type RatifySettings } from '../../condense/knowledge/ratify';
import { confirmInChannel, reopenInChannel } from '../../condense/knowledge/ratifyFiles';
import type { TranscriptMessage } from '../../condense/condensation/types';
import type { ConfigFile } from '../../config/schema';
import type { Logger } from '../../log/logger';
import type { ChannelStore } from '../../memory/store';
import { MalformedStateError } from '../../memory/storeErrors';
import { NO_PINGS } from '../discord/client';
import { answerPrivately, Clicker, clickerOf, sentence } from './clickRules';
import { INPUT, memberDraft, parseDecisionCustomId, supersedeForm } from './decisionButtons';
import { describeCondensation, DiscordCondenser } from './discordCondenser';

/**
 * Confirm, Reopen and Supersede on a pinned condensation, and Supersede's form. Each click is
 * acknowledged at once (deferred, or answered with the form), then carried out on the channel's
 * files by ratifyFiles.ts; a new decision from the form goes through the condensation's path.
 */
export interface DecisionClickOptions {
  client: Client;
  store: ChannelStore;
  logger: Logger;
  clock: () => Date;
  discord: ConfigFile['discord'];
  ratify: RatifySettings;
  condenser: DiscordCondenser;
}

export class DecisionClicks {
  constructor(private readonly o: DecisionClickOptions) {}

  /** A click on one of the decision buttons (false: not ours). */
  async button(ix: ButtonInteraction): Promise<boolean> {
    const parsed = parseDecisionCustomId(ix.customId);
    if (!parsed) return false;
    const who = await clickerOf(ix, this.o.discord);
    if (!who) return true;
    const { action, decisionId } = parsed;
    if (action === 'supersede') {
      // The form must be the first answer: the checks before it read one small file.
      const refused = await this.whyNot(who, decisionId);
      if (refused) await answerPrivately(ix, refused);
      else await ix.showModal(supersedeForm(decisionId));
      return true;
    }
    await ix.deferReply({ flags: MessageFlags.Ephemeral });
    await answerPrivately(ix, await this.readable(() => (action === 'confirm' ? this.confirm(who, decisionId) : this.reopen(ix, who, decisionId))));
    return true;
  }

  /** Supersede's form submitted: the new decision filed as a condensation replacing the old one. */
  async supersede(ix: ModalSubmitInteraction, decisionId: string): Promise<void> {
    const who = await clickerOf(ix, this.o.discord);
    if (!who) return;
    await ix.deferReply({ flags: MessageFlags.Ephemeral });
    const where = ix.channel;
    const text = await this.readable(async () => {
      const refused = await this.whyNot(who, decisionId);
      if (refused) return refused;
      if (!where?.isSendable()) return 'I cannot post in this channel, so the new decision was not recorded.';
      const old = (await readContext(this.o.store, who.ref)).decisions.find((d) => d.id === decisionId)!;
      const decision = ix.fields.getTextInputValue(INPUT.decision);
      const reason = ix.fields.getTextInputValue(INPUT.reason);
      const draft = memberDraft({ kind: 'supersede', old, decision, reason, member: who.name });
      const said: TranscriptMessage = {
        id: ix.id,
        authorId: who.id,
        authorName: who.name,
        at: ix.createdAt,
        content: `${decision}\n\nWhy: ${reason}`,
        isBot: false,
      };
      const r = await this.o.condenser.fileMemberDraft(where as SendableChannels, [said], draft);
      return r.status === 'done' ? `Recorded ${r.decisionId}, replacing ${decisionId}: ${r.post?.url ?? r.file}` : describeCondensation(r);
    });
    await answerPrivately(ix, text);
  }

  /** Why this member may not change the decision now, or undefined when they may. */
  private async whyNot(who: Clicker, decisionId: string): Promise<string | undefined> {
    const role = this.o.ratify.role;
    if (role && !who.roles.includes(role))
      return `Only members with the role <@&${role}> may confirm, reopen or supersede decisions here (secretary.ratify.role).`;
    let d: ContextDecision | undefined;
    try {
      d = (await readContext(this.o.store, who.ref)).decisions.find((x) => x.id === decisionId && x.kind === 'decision');
    } catch (err) {
      if (err instanceof MalformedStateError) return `Cannot read this channel's decisions: ${err.message}.`;
      throw err;
    }
    if (!d) return `No decision ${decisionId} in this channel: it may have been recorded in another one.`;
    if (decisionStatus(d) === 'superseded') return `${decisionId} was already replaced by ${d.supersededBy}: it is no longer in force.`;
    return undefined;
  }

  private async confirm(who: Clicker, decisionId: string): Promise<string> {
    const r = await confirmInChannel(this.o.store, who.ref, this.click(who, decisionId));
    if (!r.ok) return sentence(r.why);
    if (r.status === 'ratified') return `Confirmed: ${decisionId} is ratified.`;
    const rest = Math.max(1, this.o.ratify.minConfirmations) - (r.decision.ratifiedBy?.length ?? 0);
    return `Confirmed: ${decisionId} needs ${rest} more member${rest === 1 ? '' : 's'} to confirm it before it is ratified.`;
  }

  private async reopen(ix: ButtonInteraction, who: Clicker, decisionId: string): Promise<string> {
    const r = await reopenInChannel(this.o.store, who.ref, this.click(who, decisionId));
    if (!r.ok) return sentence(r.why);
    const note = `${who.name} reopened ${decisionId} (“${oneLine(r.decision.text, 120)}”): it is disputed until a new condensation settles it.`;
    const where = await this.discussion(r.decision.threadId).catch((err: unknown) => {
      this.o.logger.warn({ err, decision: decisionId }, 'could not reopen the thread of a reopened decision');
      return undefined;
    });
    const to = where ?? (ix.channel?.isSendable() ? ix.channel : undefined);
    // Silent on purpose: the decision is reopened either way; the member is told where the note went.
    const sent = to ? await to.send({ content: note, allowedMentions: NO_PINGS }).catch(() => undefined) : undefined;
    return `Reopened: ${decisionId} is disputed${sent ? `; noted in ${sent.url}` : ''}.`;
  }

  /** The thread a decision came from, unarchived so the discussion can go on; none for a channel's discussion. */
  private async discussion(threadId: string | undefined): Promise<SendableChannels | undefined> {
    if (!threadId) return undefined;
    const ch = await this.o.client.channels.fetch(threadId);
    if (!ch?.isThread()) return undefined;
    if (ch.archived) await ch.setArchived(false, 'a member reopened its decision');
    return ch.isSendable() ? ch : undefined;
  }

  private click(who: Clicker, decisionId: string) {
    return { decisionId, member: { id: who.id, name: who.name, roles: who.roles }, at: this.o.clock(), settings: this.o.ratify };
  }

  /** A channel whose context.json does not parse answers with why, never a silent failure. */
  private async readable(work: () => Promise<string>): Promise<string> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof MalformedStateError) return `Cannot change this channel's decisions: ${err.message}.`;
      throw err;
    }
  }
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
