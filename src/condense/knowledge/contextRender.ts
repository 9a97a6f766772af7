import { NAMES } from '../../memory/layout';
import { TEMPLATES } from '../../memory/templates';
import { formatItem, openItems } from './actionItems';
import { activeConstraints, ContextData, ContextDecision, currentDecisions, newestFirst } from './contextData';
import { formatQuestion, openQuestions } from './openQuestions';
import { byLastChange, currentVersion, Playbook, stepsInline } from './playbooks';
import { statusAsOf, statusWords } from './ratify';

/** How CONTEXT.md and CONTEXT.archive.md are drawn from context.json (without the hash line). */

const flat = (s: string) => s.replace(/\s*[\r\n]+\s*/g, ' ').trim();

/**
 * How many of each list CONTEXT.md shows; the older rest is rendered into CONTEXT.archive.md.
 * CONTEXT.md is read whole into every chat prompt (cut from the end at context.maxChars), so a year
 * of decisions would cost the most tokens of every call and push Active Constraints and the
 * superseded list past the cut. The newest decisions are what a conversation builds on; the older
 * ones stay in force, listed in the archive (linked from CONTEXT.md), on the dashboard, and in
 * MEMORY.md, where recall finds them when a message is about them. At these counts CONTEXT.md
 * stays about a page (a decision line is ~150 characters).
 */
export const CONTEXT_SHOWN = { decisions: 20, constraints: 20, actions: 20, questions: 20, playbooks: 10, superseded: 10 } as const;

/** Each list of the rendering, in display order, split into what CONTEXT.md shows and the older rest. */
function contextLists(data: ContextData) {
  const S = CONTEXT_SHOWN;
  const current = currentDecisions(data);
  const cons = activeConstraints(data);
  const open = openItems(data.actions);
  const superseded = newestFirst(data.decisions.filter((d) => d.kind === 'decision' && d.supersededBy));
  const playbooks = byLastChange(data.playbooks);
  // Decisions, playbooks and the superseded list are newest first; constraints, action items and questions oldest first.
  const tail = <T>(xs: T[], n: number) => ({ shown: xs.slice(Math.max(0, xs.length - n)), older: xs.slice(0, Math.max(0, xs.length - n)) });
  return {
    current: { shown: current.slice(0, S.decisions), older: current.slice(S.decisions) },
    constraints: tail(cons, S.constraints),
    actions: tail(open, S.actions),
    questions: tail(openQuestions(data.questions), S.questions),
    playbooks: { shown: playbooks.slice(0, S.playbooks), older: playbooks.slice(S.playbooks) },
    superseded: { shown: superseded.slice(0, S.superseded), older: superseded.slice(S.superseded) },
  };
}

/** Whether any list is longer than CONTEXT.md shows (then CONTEXT.archive.md holds the rest). */
export function archiveNeeded(data: ContextData): boolean {
  const L = contextLists(data);
  return (
    L.current.older.length +
      L.constraints.older.length +
      L.actions.older.length +
      L.questions.older.length +
      L.playbooks.older.length +
      L.superseded.older.length >
    0
  );
}

const ARCHIVE_LINK = `[${NAMES.contextArchive}](${NAMES.contextArchive})`;
const olderNote = (n: number, what: string) => `_${n} older ${what} ${n === 1 ? 'is' : 'are'} listed in ${ARCHIVE_LINK}._`;

/** A display name inside CONTEXT.md: one line, its markdown shown as typed (a name is anyone's to choose). */
const mdName = (s: string) => flat(s).replace(/[\\`*_~[\]<>|#!]/g, (c) => `\\${c}`);

/**
 * What a decision line ends with: its status (ratify.ts). Lines rendered before decisions had one
 * end without it: contextHandEdits.ts strips it to tell such a line from a person's edit.
 */
export const STATUS_SUFFIX = / — (?:proposed(?:, confirmed by .*)?|ratified by .*|disputed(?:: .*)?)$/;

function decisionLine(d: ContextDecision, n: number): string {
  const link = d.file ? ` ([condensation](condensations/${encodeURI(d.file)}))` : '';
  return `${n}. [${d.date}] **${flat(d.topic)}:** ${flat(d.text)}${link} — ${statusWords(statusAsOf(d), mdName)}`;
}

/** A playbook in one line: its name, its steps and its file (where the earlier versions are). */
function playbookLine(p: Playbook): string {
  const v = currentVersion(p);
  const when = p.versions.length > 1 ? `changed ${v.date}` : `from ${v.date}`;
  return `- **${flat(p.name)}:** ${stepsInline(v.steps)} ([playbook](${NAMES.playbooks}/${encodeURI(p.slug)}.md)) _(${when})_`;
}

function supersededLine(d: ContextDecision, byId: Map<string, ContextDecision>): string {
  const by = byId.get(d.supersededBy as string);
  const what = by ? (by.kind === 'none' ? `a later discussion of ${flat(by.topic)}` : flat(by.text)) : d.supersededBy;
  return `- ~~[${d.date}] ${flat(d.topic)}: ${flat(d.text)}~~ → Replaced by ${what} (${d.supersededDate ?? by?.date ?? '?'})`;
}

/** The generated part of CONTEXT.md, without the hash line. */
export function renderContextBody(data: ContextData): string {
  const byId = new Map(data.decisions.map((d) => [d.id, d]));
  const L = contextLists(data);
  const out: string[] = ['# Channel Context', '', '## Current State', ''];
  out.push(data.currentState ? `${flat(data.currentState.text)} _(as of ${data.currentState.date})_` : '_Nothing condensed yet._');
  out.push('', '## Key Decisions', '');
  L.current.shown.forEach((d, i) => out.push(decisionLine(d, i + 1)));
  if (!L.current.shown.length) out.push('_None yet._');
  if (L.current.older.length) out.push('', olderNote(L.current.older.length, 'decisions still in force'));
  out.push('', '## Active Constraints', '');
  for (const c of L.constraints.shown) out.push(`- ${flat(c.text)}`);
  if (!L.constraints.shown.length) out.push('_None._');
  if (L.constraints.older.length) out.push('', olderNote(L.constraints.older.length, 'constraints still in force'));
  // Only once a condensation named any: a channel without them keeps the layout it had.
  if (data.actions?.length) {
    out.push('', '## Open Action Items', '');
    for (const i of L.actions.shown) out.push(`- ${formatItem(i)}`);
    if (!L.actions.shown.length) out.push('_None open._');
    if (L.actions.older.length) out.push('', olderNote(L.actions.older.length, 'open action items'));
  }
  // The same for open questions and playbooks.
  if (data.questions?.length) {
    out.push('', '## Open Questions', '');
    for (const q of L.questions.shown) out.push(`- ${formatQuestion(q)}`);
    if (!L.questions.shown.length) out.push('_None open._');
    if (L.questions.older.length) out.push('', olderNote(L.questions.older.length, 'open questions'));
  }
  if (data.playbooks?.length) {
    out.push('', '## Playbooks', '');
    for (const p of L.playbooks.shown) out.push(playbookLine(p));
    if (L.playbooks.older.length) out.push('', olderNote(L.playbooks.older.length, 'playbooks'));
  }
  out.push('', '## Superseded Decisions', '');
  for (const d of L.superseded.shown) out.push(supersededLine(d, byId));
  if (!L.superseded.shown.length) out.push('_None._');
  if (L.superseded.older.length) out.push('', olderNote(L.superseded.older.length, 'superseded decisions'));
  return out.join('\n') + '\n';
}

/** The generated part of CONTEXT.archive.md: the older part of every list CONTEXT.md cuts. */
export function renderArchiveBody(data: ContextData): string {
  const S = CONTEXT_SHOWN;
  const byId = new Map(data.decisions.map((d) => [d.id, d]));
  const L = contextLists(data);
  const out: string[] = [
    '# Channel Context — Archive',
    '',
    `_The older part of [CONTEXT.md](CONTEXT.md), rendered from .minutes/context.json. CONTEXT.md lists the newest ${S.decisions} key decisions, ${S.constraints} active constraints, ${S.actions} open action items and ${S.superseded} superseded decisions, so that it stays short enough to be read into every prompt; everything older is here._`,
  ];
  out.push('', '## Older Key Decisions (still in force)', '');
  L.current.older.forEach((d, i) => out.push(decisionLine(d, S.decisions + i + 1)));
  if (!L.current.older.length) out.push('_None._');
  out.push('', '## Older Active Constraints', '');
  for (const c of L.constraints.older) out.push(`- ${flat(c.text)}`);
  if (!L.constraints.older.length) out.push('_None._');
  out.push('', '## Older Open Action Items', '');
  for (const i of L.actions.older) out.push(`- ${formatItem(i)}`);
  if (!L.actions.older.length) out.push('_None._');
  // Only in channels that have any, as in CONTEXT.md: an existing archive keeps its layout.
  if (data.questions?.length) {
    out.push('', '## Older Open Questions', '');
    for (const q of L.questions.older) out.push(`- ${formatQuestion(q)}`);
    if (!L.questions.older.length) out.push('_None._');
  }
  if (data.playbooks?.length) {
    out.push('', '## Older Playbooks', '');
    for (const p of L.playbooks.older) out.push(playbookLine(p));
    if (!L.playbooks.older.length) out.push('_None._');
  }
  out.push('', '## Older Superseded Decisions', '');
  for (const d of L.superseded.older) out.push(supersededLine(d, byId));
  if (!L.superseded.older.length) out.push('_None._');
  return out.join('\n') + '\n';
}

/** The two files rendered from context.json: how each is drawn, and what a missing one starts as. */
export interface ContextDocKind {
  name: string;
  render: (data: ContextData) => string;
  template: string;
}
export const MAIN_DOC: ContextDocKind = { name: NAMES.context, render: renderContextBody, template: TEMPLATES['CONTEXT.md'] };
export const ARCHIVE_DOC: ContextDocKind = { name: NAMES.contextArchive, render: renderArchiveBody, template: '' };
