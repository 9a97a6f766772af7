import crypto from 'node:crypto';

/**
 * MEMORY.md is line-oriented, not CommonMark: every non-empty line that is not a heading is one
 * entry, bullet or not, so a plain line under a bullet stays its own entry.
 *
 * Bot-written entry:    `- [m-3f9a1c] text [from: <source>, <YYYY-MM-DD>]`
 * Superseded entry:     `- ~~[m-a] old text~~ → [m-b] (YYYY-MM-DD) [from: …]`
 * Hand-written entries may carry neither id nor provenance.
 */
export interface MemoryLine {
  /** 0-based line number in the file. */
  index: number;
  raw: string;
  kind: 'heading' | 'blank' | 'entry';
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

export const ENTRY_ID = /^m-[a-z0-9]{4,16}$/;
const HEADING = /^\s{0,3}#{1,6}\s/;
const BULLET = /^(\s*(?:[-*+]|\d{1,3}[.)])\s+)/;
const ID_PREFIX = /^\[(m-[a-z0-9]{4,16})\]\s*/;
const PROVENANCE = /\s*\[from:\s*([^\]]*?)\]\s*$/;
const STRUCK = /^~~\s*(?:\[(m-[a-z0-9]{4,16})\]\s*)?([\s\S]*?)~~\s*(?:→|->)\s*(?:\[(m-[a-z0-9]{4,16})\])?/;
const ISO_DATE = /\b(\d{4}-\d{2}-\d{2})\b/;

export function parseMemory(text: string): MemoryLine[] {
  const lines = text.split(/\r?\n/);
  return lines.map((raw, index) => parseMemoryLine(raw, index));
}

export function parseMemoryLine(raw: string, index = 0): MemoryLine {
  // Blank lines and one-line HTML comments (the template's guidance) are not entries.
  if (raw.trim() === '' || /^\s*<!--.*-->\s*$/.test(raw)) return { index, raw, kind: 'blank', text: '', superseded: false, bullet: '' };
  if (HEADING.test(raw)) {
    return { index, raw, kind: 'heading', text: raw.replace(/^\s*#+\s*/, '').trim(), superseded: false, bullet: '' };
  }
  const bulletMatch = BULLET.exec(raw);
  const bullet = bulletMatch ? bulletMatch[1] : '';
  let body = raw.slice(bullet.length).trim();
  let source: string | undefined;
  let date: string | undefined;
  const prov = PROVENANCE.exec(body);
  if (prov) {
    const parts = prov[1].split(',').map((s) => s.trim());
    const last = parts[parts.length - 1];
    const d = ISO_DATE.exec(last ?? '');
    if (d && parts.length > 1) {
      date = d[1];
      source = parts.slice(0, -1).join(', ');
    } else {
      source = prov[1].trim();
    }
    body = body.slice(0, prov.index).trim();
  }
  const struck = STRUCK.exec(body);
  if (struck) {
    return {
      index, raw, kind: 'entry', text: struck[2].trim(), id: struck[1], source, date,
      superseded: true, supersededBy: struck[3], bullet,
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
  return `${line.bullet ? lead : ''}${bullet}[${id}] ${body.trimStart()}`;
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
  return s.toLowerCase().normalize('NFKC').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}
