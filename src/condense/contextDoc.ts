import crypto from 'node:crypto';
import { TEMPLATES } from '../memory/templates';
import { ActionItem, formatItem, openItems } from './actionItems';

/**
 * CONTEXT.md is rendered by code from `.minutes/context.json`, never written by a model. The file
 * carries a hash of what was rendered, so a person's edit is noticed on the next render and the
 * lines they changed or added are moved under "Notes (hand-written)" instead of being lost.
 */
export interface ContextDecision {
  /** `d-` + the first 10 hex of the ledger key: stable, so a resumed step upserts, never duplicates. */
  id: string;
  /** 'none' entries are discussions without a conclusion: not listed, but they own constraints. */
  kind: 'decision' | 'none';
  topic: string;
  text: string;
  date: string;
  /** Condensation file name, relative to the condensations folder. */
  file?: string;
  memoryId?: string;
  supersededBy?: string;
  supersededDate?: string;
  ledgerKey: string;
  threadId?: string;
}

export interface ContextConstraint {
  text: string;
  date: string;
  /** The condensation that established it; it lapses when that decision is superseded. */
  decisionId: string;
  memoryId?: string;
}

export interface ContextData {
  version: 1;
  currentState?: { text: string; date: string };
  decisions: ContextDecision[];
  constraints: ContextConstraint[];
  /** Absent in files written before action items were tracked. */
  actions?: ActionItem[];
}

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

/** The generated part of CONTEXT.md, without the hash line. */
export function renderContextBody(data: ContextData): string {
  const byId = new Map(data.decisions.map((d) => [d.id, d]));
  const out: string[] = ['# Channel Context', '', '## Current State', ''];
  out.push(data.currentState ? `${flat(data.currentState.text)} _(as of ${data.currentState.date})_` : '_Nothing condensed yet._');
  out.push('', '## Key Decisions', '');
  const current = currentDecisions(data);
  current.forEach((d, i) => {
    const link = d.file ? ` ([condensation](condensations/${encodeURI(d.file)}))` : '';
    out.push(`${i + 1}. [${d.date}] **${flat(d.topic)}:** ${flat(d.text)}${link}`);
  });
  if (!current.length) out.push('_None yet._');
  out.push('', '## Active Constraints', '');
  const cons = activeConstraints(data);
  for (const c of cons) out.push(`- ${flat(c.text)}`);
  if (!cons.length) out.push('_None._');
  // Only once a condensation named any: a channel without them keeps the layout it had.
  if (data.actions?.length) {
    out.push('', '## Open Action Items', '');
    const open = openItems(data.actions);
    for (const i of open) out.push(`- ${formatItem(i)}`);
    if (!open.length) out.push('_None open._');
  }
  out.push('', '## Superseded Decisions', '');
  const superseded = newestFirst(data.decisions.filter((d) => d.kind === 'decision' && d.supersededBy));
  for (const d of superseded) {
    const by = byId.get(d.supersededBy as string);
    const what = by ? (by.kind === 'none' ? `a later discussion of ${flat(by.topic)}` : flat(by.text)) : d.supersededBy;
    out.push(`- ~~[${d.date}] ${flat(d.topic)}: ${flat(d.text)}~~ → Replaced by ${what} (${d.supersededDate ?? by?.date ?? '?'})`);
  }
  if (!superseded.length) out.push('_None._');
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

/**
 * Lines a person changed or added in the generated part: lines of the file that the previous
 * render (or the template) did not contain and the new render does not contain either.
 */
export function handEditedLines(current: string, previous: ContextData, next: ContextData): string[] {
  const { main, hash } = splitContext(current);
  if (hash !== undefined && hashOf(main) === hash) return [];
  const known = new Set<string>();
  const addAll = (t: string) => t.split('\n').forEach((l) => known.add(l.trim()));
  addAll(renderContextBody(previous));
  addAll(renderContextBody(next));
  addAll(TEMPLATES['CONTEXT.md']);
  return (
    main
      .split('\n')
      .filter((l) => l.trim() && !known.has(l.trim()))
      // A heading a person added stays inside the Notes section.
      .map((l) => l.replace(/^\s{0,3}#{1,2}\s+/, '### '))
  );
}

/**
 * The whole new CONTEXT.md: the render of `next`, its hash, and the Notes section (what was
 * there before plus the lines a person edited since the last render).
 */
export function composeContext(current: string | null, previous: ContextData, next: ContextData): string {
  const body = renderContextBody(next);
  const notes = current ? splitContext(current).notes : [];
  if (current) {
    const have = new Set(notes.map((l) => l.trim()));
    for (const l of handEditedLines(current, previous, next)) {
      if (!have.has(l.trim())) {
        notes.push(l);
        have.add(l.trim());
      }
    }
  }
  const rendered = withHashLine(body);
  return notes.length ? `${rendered}\n${NOTES_HEADING}\n\n${notes.join('\n')}\n` : rendered;
}

/** Why CONTEXT.md differs from what context.json renders; null when it is current. */
export function contextStaleness(current: string | null, data: ContextData): string | null {
  if (current === null) return data.decisions.length ? 'CONTEXT.md is missing' : null;
  const { main, hash } = splitContext(current);
  if (hash === undefined) return data.decisions.length || data.currentState ? 'CONTEXT.md was not rendered from .minutes/context.json' : null;
  if (hashOf(main) !== hash) return 'CONTEXT.md was edited by hand since it was rendered';
  if (main !== renderContextBody(data)) return 'CONTEXT.md is out of date with .minutes/context.json';
  return null;
}
