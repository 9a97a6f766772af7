import { BULLET, FENCE, findProvenance, HEADING, ID_PREFIX, ISO_DATE, STRUCK_ENTRY } from './grammar';
import crypto from 'node:crypto';

/**
 * MEMORY.md is line-oriented, not CommonMark: every non-empty line that is not a heading is one
 * entry, bullet or not, so a plain line under a bullet stays its own entry. What a person writes
 * that is not a statement is left alone (kind 'other', never given an id, never recalled): HTML
 * comments (one line or several), fenced code, table rows, rules and empty bullets.
 *
 * Bot-written entry:    `- [m-3f9a1c] text [from: <source>, <YYYY-MM-DD>]`
 * Superseded entry:     `- ~~[m-a] old text~~ → [m-b] (YYYY-MM-DD) [from: …]`
 * Hand-written entries may carry neither id nor provenance.
 */
export interface MemoryLine {
  /** 0-based line number in the file. */
  index: number;
  raw: string;
  kind: 'heading' | 'other' | 'entry';
  /** The heading text for headings; the entry text without bullet, id and provenance otherwise. */
  text: string;
  id?: string;
  source?: string;
  date?: string;
  superseded: boolean;
  supersededBy?: string;
  /** The bullet marker as written ('- ', '* ', '1. ', or ''), kept when the line is rewritten. */
  bullet: string;
}

const STRUCK = STRUCK_ENTRY;

export function parseMemory(text: string): MemoryLine[] {
  const lines = text.split(/\r?\n/);
  const skip = nonEntryLines(lines);
  return lines.map((raw, index) => (skip[index] ? other(raw, index) : parseMemoryLine(raw, index)));
}

/**
 * A table row, a rule or setext underline, or a bullet with nothing after it; tested on the
 * trimmed line (spaces on both sides in the pattern made a long line of them take quadratic time).
 */
const NOT_A_STATEMENT_TRIMMED = /^(?:\|.*\||(?:[-*_=]\s*){3,}|(?:[-*+]|\d{1,3}[.)])?)$/;
const statesNothing = (raw: string): boolean => NOT_A_STATEMENT_TRIMMED.test(raw.trim());

/**
 * Which lines of a memory file are not entries: inside an HTML comment or a code fence (a person's
 * note or example, which may span lines), or a line that states nothing. One function for the
 * writer (parseMemory) and for recall (markdownBlocks.lineEntries), so they never disagree.
 */
export function nonEntryLines(lines: string[]): boolean[] {
  const { hidden } = hiddenSpans(lines);
  return lines.map((raw, i) => hidden[i] || raw.trim() === '' || statesNothing(raw));
}

/**
 * Lines inside an HTML comment or a code fence (their opening and closing lines included), and
 * where a span that is never closed begins (null if none): nothing may be written into one.
 */
export function hiddenSpans(lines: string[]): { hidden: boolean[]; openFrom: number | null } {
  const hidden = new Array<boolean>(lines.length).fill(false);
  let fence: string | null = null;
  let inComment = false;
  let from = -1;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    if (fence) {
      hidden[i] = true;
      if (raw.trim().startsWith(fence)) fence = null;
      continue;
    }
    if (inComment) {
      hidden[i] = true;
      if (raw.includes('-->')) inComment = false;
      continue;
    }
    const f = FENCE.exec(raw);
    if (f) {
      hidden[i] = true;
      fence = f[1];
      from = i;
      continue;
    }
    const open = raw.indexOf('<!--');
    if (open >= 0 && raw.trimStart().startsWith('<!--')) {
      hidden[i] = true;
      inComment = !raw.slice(open + 4).includes('-->');
      from = i;
    }
  }
  return { hidden, openFrom: fence || inComment ? from : null };
}

function other(raw: string, index: number): MemoryLine {
  return { index, raw, kind: 'other', text: '', superseded: false, bullet: '' };
}

export function parseMemoryLine(raw: string, index = 0): MemoryLine {
  // Blank lines and one-line HTML comments (the template's guidance) are not entries.
  if (raw.trim() === '' || /^\s*<!--.*-->\s*$/.test(raw) || statesNothing(raw)) return other(raw, index);
  if (HEADING.test(raw)) {
    return { index, raw, kind: 'heading', text: raw.replace(/^\s*#+\s*/, '').trim(), superseded: false, bullet: '' };
  }
  const bulletMatch = BULLET.exec(raw);
  const bullet = bulletMatch ? bulletMatch[1] : '';
  let body = raw.slice(bullet.length).trim();
  let source: string | undefined;
  let date: string | undefined;
  const prov = findProvenance(body);
  if (prov) {
    const parts = prov.source.split(',').map((s) => s.trim());
    const last = parts[parts.length - 1];
    const d = ISO_DATE.exec(last ?? '');
    if (d && parts.length > 1) {
      date = d[1];
      source = parts.slice(0, -1).join(', ');
    } else {
      source = prov.source.trim();
    }
    body = body.slice(0, prov.index).trim();
  }
  const struck = STRUCK.exec(body);
  if (struck) {
    return {
      index,
      raw,
      kind: 'entry',
      text: struck[2].trim(),
      id: struck[1],
      source,
      date,
      superseded: true,
      supersededBy: struck[3],
      bullet,
    };
  }
  let id: string | undefined;
  const idm = ID_PREFIX.exec(body);
  if (idm) {
    id = idm[1];
    body = body.slice(idm[0].length);
  }
  // A line struck through by hand, without the arrow, is also no longer current.
  const handStruck = /^~~[\s\S]+~~$/.test(body);
  return { index, raw, kind: 'entry', text: body.trim(), id, source, date, superseded: handStruck, bullet };
}

export function formatEntry(e: { id: string; text: string; source: string; date: string }): string {
  return `- [${e.id}] ${oneLine(e.text)} [from: ${oneLine(e.source)}, ${e.date}]`;
}

export function formatSuperseded(old: MemoryLine, newId: string, date: string): string {
  const prov = old.source !== undefined ? ` [from: ${old.source}${old.date ? `, ${old.date}` : ''}]` : '';
  const bullet = old.bullet || '- ';
  return `${bullet}~~[${old.id}] ${old.text}~~ → [${newId}] (${date})${prov}`;
}

/** Gives a hand-written line an id without touching its words. */
export function withId(line: MemoryLine, id: string): string {
  const lead = line.raw.slice(0, line.raw.length - line.raw.trimStart().length);
  const bullet = line.bullet ? line.bullet.trim() + ' ' : '- ';
  const body = line.raw.slice(line.bullet ? line.bullet.length : lead.length);
  // The indent stays: an indented line is a nested item, and its place in the file is the person's.
  return `${lead}${bullet}[${id}] ${body.trimStart()}`;
}

export function newEntryId(taken: Set<string>, random: () => string = defaultRandom): string {
  for (;;) {
    const id = `m-${random()}`;
    if (!taken.has(id)) {
      taken.add(id);
      return id;
    }
  }
}

function defaultRandom(): string {
  return crypto.randomBytes(3).toString('hex');
}

/** Entry text is one line; newlines from a model or a person would split an entry in two. */
export function oneLine(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/** Whitespace collapsed to single spaces, then cut at a word boundary to at most `n` characters (… marks a cut). */
export function clipWords(s: string, n: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= n ? one : `${one.slice(0, n - 1).replace(/\s+\S*$/, '')}…`;
}

export function utcDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function normalizeForCompare(s: string): string {
  return s
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
