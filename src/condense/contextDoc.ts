import crypto from 'node:crypto';
import { z } from 'zod';
import { TEMPLATES } from '../memory/templates';
import { ActionItem, formatItem, openItems } from './actionItems';

/**
 * CONTEXT.md is rendered by code from `.minutes/context.json`, never written by a model. The file
 * carries a hash of what was rendered, so a person's edit is noticed on the next render and the
 * lines they changed or added are moved under "Notes (hand-written)" instead of being lost.
 * context.json's shapes are zod schemas that share their type's name; objects are loose, so keys
 * this version does not know survive a rewrite.
 */
export const ContextDecision = z.looseObject({
  /** `d-` + the first 10 hex of the ledger key: stable, so a resumed step upserts, never duplicates. */
  id: z.string(),
  /** 'none' entries are discussions without a conclusion: not listed, but they own constraints. */
  kind: z.enum(['decision', 'none']),
  topic: z.string(),
  text: z.string(),
  date: z.string(),
  /** Condensation file name, relative to the condensations folder. */
  file: z.string().optional(),
  memoryId: z.string().optional(),
  supersededBy: z.string().optional(),
  supersededDate: z.string().optional(),
  ledgerKey: z.string(),
  threadId: z.string().optional(),
});
export type ContextDecision = z.infer<typeof ContextDecision>;

export const ContextConstraint = z.looseObject({
  text: z.string(),
  date: z.string(),
  /** The condensation that established it; it lapses when that decision is superseded. */
  decisionId: z.string(),
  memoryId: z.string().optional(),
});
export type ContextConstraint = z.infer<typeof ContextConstraint>;

export const ContextData = z.looseObject({
  version: z.literal(1),
  currentState: z.looseObject({ text: z.string(), date: z.string() }).optional(),
  decisions: z.array(ContextDecision),
  constraints: z.array(ContextConstraint),
  /** Absent in files written before action items were tracked. */
  actions: z.array(ActionItem).optional(),
});
export type ContextData = z.infer<typeof ContextData>;

export const EMPTY_CONTEXT: ContextData = { version: 1, decisions: [], constraints: [] };

export const NOTES_HEADING = '## Notes (hand-written)';
const HASH_LINE = /^<!-- minutes:context-hash ([0-9a-f]{12})\b.*-->[ \t]*$/m;
const NOTES_RE = /^##\s+Notes \(hand-written\)\s*$/m;

export function decisionIdFor(ledgerKey: string): string {
  return `d-${ledgerKey.slice(0, 10)}`;
}

export function currentDecisions(data: ContextData): ContextDecision[] {
  return newestFirst(data.decisions.filter((d) => d.kind === 'decision' && !d.supersededBy));
}

export function activeConstraints(data: ContextData): ContextConstraint[] {
  const lapsed = new Set(data.decisions.filter((d) => d.supersededBy).map((d) => d.id));
  const seen = new Set<string>();
  return data.constraints.filter((c) => {
    const k = c.text.toLowerCase();
    if (lapsed.has(c.decisionId) || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * MEMORY.md ids of the constraints of `replaced` decisions that no current decision still owns:
 * they left Active Constraints, so MEMORY.md must not keep listing them as current.
 */
export function lapsedConstraintMemoryIds(data: ContextData, replaced: string[]): string[] {
  const stillActive = new Set(activeConstraints(data).map((c) => c.text.toLowerCase()));
  return data.constraints
    .filter((c) => replaced.includes(c.decisionId) && c.memoryId && !stillActive.has(c.text.toLowerCase()))
    .map((c) => c.memoryId as string);
}

function newestFirst<T extends { date: string }>(xs: T[]): T[] {
  // Stable on ties: among same-day decisions the later-filed one comes first.
  return xs
    .map((x, i) => ({ x, i }))
    .sort((a, b) => b.x.date.localeCompare(a.x.date) || b.i - a.i)
    .map((e) => e.x);
}

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
export const CONTEXT_SHOWN = { decisions: 20, constraints: 20, actions: 20, superseded: 10 } as const;

export const CONTEXT_ARCHIVE_NAME = 'CONTEXT.archive.md';

/** Each list of the rendering, in display order, split into what CONTEXT.md shows and the older rest. */
function contextLists(data: ContextData) {
  const S = CONTEXT_SHOWN;
  const current = currentDecisions(data);
  const cons = activeConstraints(data);
  const open = openItems(data.actions);
  const superseded = newestFirst(data.decisions.filter((d) => d.kind === 'decision' && d.supersededBy));
  // Decisions and the superseded list are newest first; constraints and action items oldest first.
  const tail = <T>(xs: T[], n: number) => ({ shown: xs.slice(Math.max(0, xs.length - n)), older: xs.slice(0, Math.max(0, xs.length - n)) });
  return {
    current: { shown: current.slice(0, S.decisions), older: current.slice(S.decisions) },
    constraints: tail(cons, S.constraints),
    actions: tail(open, S.actions),
    superseded: { shown: superseded.slice(0, S.superseded), older: superseded.slice(S.superseded) },
  };
}

/** Whether any list is longer than CONTEXT.md shows (then CONTEXT.archive.md holds the rest). */
export function archiveNeeded(data: ContextData): boolean {
  const L = contextLists(data);
  return L.current.older.length + L.constraints.older.length + L.actions.older.length + L.superseded.older.length > 0;
}

const ARCHIVE_LINK = `[${CONTEXT_ARCHIVE_NAME}](${CONTEXT_ARCHIVE_NAME})`;
const olderNote = (n: number, what: string) => `_${n} older ${what} ${n === 1 ? 'is' : 'are'} listed in ${ARCHIVE_LINK}._`;

function decisionLine(d: ContextDecision, n: number): string {
  const link = d.file ? ` ([condensation](condensations/${encodeURI(d.file)}))` : '';
  return `${n}. [${d.date}] **${flat(d.topic)}:** ${flat(d.text)}${link}`;
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
  out.push('', '## Older Superseded Decisions', '');
  for (const d of L.superseded.older) out.push(supersededLine(d, byId));
  if (!L.superseded.older.length) out.push('_None._');
  return out.join('\n') + '\n';
}

export function hashOf(body: string): string {
  return crypto.createHash('sha256').update(body.replace(/\r\n/g, '\n')).digest('hex').slice(0, 12);
}

function withHashLine(body: string): string {
  const line = `<!-- minutes:context-hash ${hashOf(body)} — rendered from .minutes/context.json; lines you change or add are kept under "Notes (hand-written)" -->`;
  const lines = body.split('\n');
  lines.splice(1, 0, line);
  return lines.join('\n');
}

/** Splits a CONTEXT.md into its generated part (hash line removed), the hash it carries, and the notes. */
export function splitContext(text: string): { main: string; hash?: string; notes: string[] } {
  const norm = text.replace(/\r\n/g, '\n');
  const nm = NOTES_RE.exec(norm);
  const mainWithHash = nm ? norm.slice(0, nm.index) : norm;
  const notesText = nm ? norm.slice(nm.index + nm[0].length) : '';
  const hm = HASH_LINE.exec(mainWithHash);
  const main = hm ? mainWithHash.slice(0, hm.index) + mainWithHash.slice(hm.index + hm[0].length + 1) : mainWithHash;
  const notes = notesText.split('\n');
  while (notes.length && !notes[0].trim()) notes.shift();
  while (notes.length && !notes[notes.length - 1].trim()) notes.pop();
  return { main: main.replace(/\n*$/, '\n'), hash: hm?.[1], notes };
}

/** Whether the generated part still is exactly what was rendered (no hand edit since). */
export function isUntouched(text: string): boolean {
  const { main, hash } = splitContext(text);
  return hash !== undefined && hashOf(main) === hash;
}

/** The two files rendered from context.json: how each is drawn, and what a missing one starts as. */
interface ContextDocKind {
  name: string;
  render: (data: ContextData) => string;
  template: string;
}
const MAIN_DOC: ContextDocKind = { name: 'CONTEXT.md', render: renderContextBody, template: TEMPLATES['CONTEXT.md'] };
const ARCHIVE_DOC: ContextDocKind = { name: CONTEXT_ARCHIVE_NAME, render: renderArchiveBody, template: '' };

/**
 * Lines a person changed or added in the generated part: lines of the file that the previous
 * render (or the template) did not contain and the new render does not contain either.
 */
export function handEditedLines(current: string, previous: ContextData, next: ContextData, kind: ContextDocKind = MAIN_DOC): string[] {
  const { main, hash } = splitContext(current);
  if (hash !== undefined && hashOf(main) === hash) return [];
  const known = new Set<string>();
  const addAll = (t: string) => t.split('\n').forEach((l) => known.add(l.trim()));
  addAll(kind.render(previous));
  addAll(kind.render(next));
  addAll(kind.template);
  // A line that moved between CONTEXT.md and its archive (a list grew past its cut) is not an edit.
  const other = kind === MAIN_DOC ? ARCHIVE_DOC : MAIN_DOC;
  addAll(other.render(previous));
  addAll(other.render(next));
  return (
    main
      .split('\n')
      .filter((l) => l.trim() && !known.has(l.trim()))
      // A heading a person added stays inside the Notes section.
      .map((l) => l.replace(/^\s{0,3}#{1,2}\s+/, '### '))
  );
}

function composeDoc(kind: ContextDocKind, current: string | null, previous: ContextData, next: ContextData): string {
  const body = kind.render(next);
  const notes = current ? splitContext(current).notes : [];
  if (current) {
    const have = new Set(notes.map((l) => l.trim()));
    for (const l of handEditedLines(current, previous, next, kind)) {
      if (!have.has(l.trim())) {
        notes.push(l);
        have.add(l.trim());
      }
    }
  }
  const rendered = withHashLine(body);
  return notes.length ? `${rendered}\n${NOTES_HEADING}\n\n${notes.join('\n')}\n` : rendered;
}

/**
 * The whole new CONTEXT.md: the render of `next`, its hash, and the Notes section (what was
 * there before plus the lines a person edited since the last render).
 */
export function composeContext(current: string | null, previous: ContextData, next: ContextData): string {
  return composeDoc(MAIN_DOC, current, previous, next);
}

/** The whole new CONTEXT.archive.md, hand edits kept the same way as in CONTEXT.md. */
export function composeContextArchive(current: string | null, previous: ContextData, next: ContextData): string {
  return composeDoc(ARCHIVE_DOC, current, previous, next);
}

/** Why CONTEXT.md differs from what context.json renders; null when it is current. */
export function contextStaleness(current: string | null, data: ContextData): string | null {
  if (current === null) return data.decisions.length ? 'CONTEXT.md is missing' : null;
  return docStaleness(MAIN_DOC, current, data, data.decisions.length > 0 || data.currentState !== undefined);
}

/** The same for CONTEXT.archive.md, which exists only once a list outgrew CONTEXT.md. */
export function archiveStaleness(current: string | null, data: ContextData): string | null {
  if (current === null) return archiveNeeded(data) ? `${CONTEXT_ARCHIVE_NAME} is missing` : null;
  return docStaleness(ARCHIVE_DOC, current, data, true);
}

function docStaleness(kind: ContextDocKind, current: string, data: ContextData, hasContent: boolean): string | null {
  const { main, hash } = splitContext(current);
  if (hash === undefined) return hasContent ? `${kind.name} was not rendered from .minutes/context.json` : null;
  if (hashOf(main) !== hash) return `${kind.name} was edited by hand since it was rendered`;
  if (main !== kind.render(data)) return `${kind.name} is out of date with .minutes/context.json`;
  return null;
}
