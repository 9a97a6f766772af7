import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  LabelBuilder,
  ModalBuilder,
  TextInputBuilder,
  TextInputStyle,
  type APIActionRowComponent,
  type APIComponentInMessageActionRow,
} from 'discord.js';
import type { CondensationDraft } from '../../condense/condensation/types';

/**
 * The components on a pinned condensation and the forms they open (pure). Every custom id says
 * what it acts on (the decision id; the channel is the one the post is in), never a key held in
 * memory: a button keeps working after a restart, and on any post whose decision can be found.
 */
export type DecisionAction = 'confirm' | 'reopen' | 'supersede';

const PREFIX = 'minutes:decision:';
const SUPERSEDE_FORM = 'minutes:supersede:';
const RECORD_FORM = 'minutes:record:';
/** The form inputs' custom ids. */
export const INPUT = { decision: 'decision', reason: 'reason' } as const;
const DECISION_ID = /^d-[0-9a-f]{10}$/;
const SNOWFLAKE = /^\d{17,20}$/;
/** Discord's text input holds at most 4 000 characters. */
const INPUT_MAX = 4000;

export function decisionCustomId(action: DecisionAction, decisionId: string): string {
  return `${PREFIX}${action}:${decisionId}`;
}

/** A button's custom id read back; undefined when it is not one of these (another bot's, an old one). */
export function parseDecisionCustomId(customId: string): { action: DecisionAction; decisionId: string } | undefined {
  if (!customId.startsWith(PREFIX)) return undefined;
  const [action, decisionId] = customId.slice(PREFIX.length).split(':');
  if ((action !== 'confirm' && action !== 'reopen' && action !== 'supersede') || !DECISION_ID.test(decisionId ?? '')) return undefined;
  return { action, decisionId };
}

/** Confirm, Reopen and Supersede for one decision: one row under its post. */
export function decisionButtonRow(decisionId: string): APIActionRowComponent<APIComponentInMessageActionRow> {
  const button = (action: DecisionAction, label: string, style: ButtonStyle) =>
    new ButtonBuilder().setCustomId(decisionCustomId(action, decisionId)).setLabel(label).setStyle(style);
  return new ActionRowBuilder<ButtonBuilder>()
    .addComponents(
      button('confirm', 'Confirm', ButtonStyle.Success),
      button('reopen', 'Reopen', ButtonStyle.Secondary),
      button('supersede', 'Supersede', ButtonStyle.Primary),
    )
    .toJSON();
}

/** What a submitted form is for: replacing a decision, or recording a message as one. */
export type FormTarget = { kind: 'supersede'; decisionId: string } | { kind: 'record'; messageId: string };

export function parseFormCustomId(customId: string): FormTarget | undefined {
  if (customId.startsWith(SUPERSEDE_FORM)) {
    const decisionId = customId.slice(SUPERSEDE_FORM.length);
    return DECISION_ID.test(decisionId) ? { kind: 'supersede', decisionId } : undefined;
  }
  if (customId.startsWith(RECORD_FORM)) {
    const messageId = customId.slice(RECORD_FORM.length);
    return SNOWFLAKE.test(messageId) ? { kind: 'record', messageId } : undefined;
  }
  return undefined;
}

function form(customId: string, title: string, decision: { label: string; value?: string }, reasonLabel: string, reasonRequired: boolean): ModalBuilder {
  const text = new TextInputBuilder().setCustomId(INPUT.decision).setStyle(TextInputStyle.Paragraph).setRequired(true).setMaxLength(INPUT_MAX);
  if (decision.value) text.setValue(decision.value.slice(0, INPUT_MAX));
  const reason = new TextInputBuilder().setCustomId(INPUT.reason).setStyle(TextInputStyle.Paragraph).setRequired(reasonRequired).setMaxLength(1000);
  return new ModalBuilder()
    .setCustomId(customId)
    .setTitle(title)
    .addLabelComponents(
      new LabelBuilder().setLabel(decision.label).setTextInputComponent(text),
      new LabelBuilder().setLabel(reasonLabel).setTextInputComponent(reason),
    );
}

/** Supersede's form: the new decision and why. */
export function supersedeForm(decisionId: string): ModalBuilder {
  return form(`${SUPERSEDE_FORM}${decisionId}`, `Supersede ${decisionId}`, { label: 'The new decision' }, 'Why it replaces the old one', true);
}

/** Record as decision's form, prefilled with the whole message. */
export function recordForm(messageId: string, text: string): ModalBuilder {
  return form(`${RECORD_FORM}${messageId}`, 'Record as decision', { label: 'The decision', value: text }, 'Why (optional)', false);
}

/** A topic from a decision's first words, when no condensation named one. */
function topicOf(text: string): string {
  const words = text.replace(/\s+/g, ' ').trim().split(' ');
  return words.length > 8 ? `${words.slice(0, 8).join(' ')}…` : words.join(' ');
}

/** The draft a submitted form files through the condensation's path: what members wrote, no model. */
export function memberDraft(
  o: { decision: string; reason: string; member: string } & (
    { kind: 'supersede'; old: { id: string; topic: string; text: string } } | { kind: 'record'; author: string; link: string }
  ),
): CondensationDraft {
  const decision = o.decision.trim();
  const rationale = o.reason.trim() || 'none given';
  const common = { decision, rationale, actionItems: [], constraints: [], currentState: '' };
  if (o.kind === 'supersede')
    return { ...common, topic: o.old.topic, context: `${o.member} replaced ${o.old.id} ("${o.old.text}") with Supersede.`, supersedes: [o.old.id] };
  return { ...common, topic: topicOf(decision), context: `${o.member} recorded a message by ${o.author} as a decision: ${o.link}`, supersedes: [] };
}
