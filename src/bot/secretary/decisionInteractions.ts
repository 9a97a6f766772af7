import type { Interaction, RepliableInteraction } from 'discord.js';
import { answerPrivately } from './clickRules';
import { parseFormCustomId } from './decisionButtons';
import { DecisionClicks, type DecisionClickOptions } from './decisionClicks';
import { MessageCommandClicks } from './messageCommandClicks';

/**
 * The Secretary's interactions other than slash commands (those go through the command registry):
 * the buttons on a pinned condensation, the forms they and "Record as decision" open, and the
 * message commands. Anything else is left to the other listeners.
 */
export class DecisionInteractions {
  private readonly clicks: DecisionClicks;
  private readonly messages: MessageCommandClicks;

  constructor(o: DecisionClickOptions) {
    this.clicks = new DecisionClicks(o);
    this.messages = new MessageCommandClicks(o);
  }

  async handle(ix: Interaction): Promise<void> {
    if (!ix.inGuild() || !(ix.isButton() || ix.isModalSubmit() || ix.isMessageContextMenuCommand())) return;
    try {
      if (ix.isButton()) await this.clicks.button(ix);
      else if (ix.isMessageContextMenuCommand()) await this.messages.run(ix);
      else {
        const form = parseFormCustomId(ix.customId);
        if (form?.kind === 'supersede') await this.clicks.supersede(ix, form.decisionId);
        else if (form?.kind === 'record') await this.messages.record(ix, form.messageId);
      }
    } catch (err) {
      // The member is never left with "thinking…": they are told, and the error is logged by the caller.
      await this.failed(ix);
      throw err;
    }
  }

  private async failed(ix: RepliableInteraction): Promise<void> {
    // Silent on purpose: the interaction may have expired; the original error is the one reported.
    await answerPrivately(ix, 'That did not work because of an error on my side; it is logged. Try again in a moment.').catch(() => undefined);
  }
}
