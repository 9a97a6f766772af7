import { Message, MessageContextMenuCommandInteraction, MessageFlags, ModalSubmitInteraction, type SendableChannels } from 'discord.js';
import { MAX_REMEMBER } from '../../chat/explicitRequests';
import { requestSource } from '../../chat/forgetting';
import type { TranscriptMessage } from '../../condense/condensation/types';
import type { ConfigFile } from '../../config/schema';
import type { ChannelStore } from '../../memory/store';
import { StoreError } from '../../memory/storeErrors';
import { MESSAGE_COMMANDS } from '../commands/messageCommands';
import { answerPrivately, Clicker, clickerOf } from './clickRules';
import { INPUT, memberDraft, recordForm } from './decisionButtons';
import { describeCondensation, DiscordCondenser } from './discordCondenser';

/**
 * "Record as decision" and "Remember this" on any message. Record shows a form prefilled with the
 * whole message; its submission is filed as a decision through the condensation's path, resting on
 * that message (its id in the ledger's facts and the file's source range, its link in the context).
 * Remember adds a MEMORY.md entry through the memory operations, as "remember that …" does: its
 * provenance names the author and `msg <id>`, and a secret is refused there.
 */
export class MessageCommandClicks {
  constructor(private readonly o: { store: ChannelStore; discord: ConfigFile['discord']; condenser: DiscordCondenser }) {}

  /** A message command (false: not one of ours). */
  async run(ix: MessageContextMenuCommandInteraction): Promise<boolean> {
    if (ix.commandName !== MESSAGE_COMMANDS.record && ix.commandName !== MESSAGE_COMMANDS.remember) return false;
    const who = await clickerOf(ix, this.o.discord);
    if (!who) return true;
    const msg = ix.targetMessage;
    if (!msg.content.trim()) {
      await answerPrivately(ix, 'That message has no text to record.');
      return true;
    }
    if (ix.commandName === MESSAGE_COMMANDS.record) {
      await ix.showModal(recordForm(msg.id, msg.content));
      return true;
    }
    await ix.deferReply({ flags: MessageFlags.Ephemeral });
    await answerPrivately(ix, await this.remember(who, msg));
    return true;
  }

  /** Record as decision's form submitted. */
  async record(ix: ModalSubmitInteraction, messageId: string): Promise<void> {
    const who = await clickerOf(ix, this.o.discord);
    if (!who) return;
    await ix.deferReply({ flags: MessageFlags.Ephemeral });
    const where = ix.channel;
    const msg = where ? await where.messages.fetch(messageId).catch(() => undefined) : undefined;
    if (!where?.isSendable() || !msg) {
      await answerPrivately(ix, 'That message is gone or I cannot post here, so nothing was recorded.');
      return;
    }
    const decision = ix.fields.getTextInputValue(INPUT.decision);
    const reason = ix.fields.getTextInputValue(INPUT.reason);
    const author = authorName(msg);
    const draft = memberDraft({ kind: 'record', decision, reason, member: who.name, author, link: msg.url });
    // The decision rests on the recorded message: its id and day are the condensation's, whoever wrote it.
    const rests: TranscriptMessage = { id: msg.id, authorId: msg.author.id, authorName: author, at: msg.createdAt, content: decision, isBot: false };
    const r = await this.o.condenser.fileMemberDraft(where as SendableChannels, [rests], draft);
    await answerPrivately(ix, r.status === 'done' ? `Recorded ${r.decisionId} from ${msg.url}: ${r.post?.url ?? r.file}` : describeCondensation(r));
  }

  private async remember(who: Clicker, msg: Message): Promise<string> {
    const text = msg.content.replace(/\s+/g, ' ').trim();
    if (text.length > MAX_REMEMBER) return `Not saved to memory: that is ${text.length} characters and one entry holds at most ${MAX_REMEMBER}.`;
    const source = requestSource({ id: msg.id, authorName: authorName(msg), authorId: msg.author.id });
    try {
      const r = await this.o.store.applyMemoryOps(who.ref, [{ op: 'add', text, source, explicit: true, reason: `Remember this, by ${who.name}` }]);
      const saved = r.applied[0];
      if (saved) return `Saved to memory as ${saved.id}: "${text.length > 120 ? `${text.slice(0, 119)}…` : text}".`;
      return `Not saved to memory: ${r.skipped[0]?.why ?? 'nothing to save'}.`;
    } catch (err) {
      if (err instanceof StoreError) return `Not saved to memory: ${err.message}.`;
      throw err;
    }
  }
}

function authorName(m: Message): string {
  return m.member?.displayName ?? m.author.globalName ?? m.author.username;
}
