/**
 * The grammar of the memory files, in one place, for the parser and writer of MEMORY.md
 * (entries.ts, memoryOps.ts), recall's block splitter (markdownBlocks.ts), SESSION.md's renderer and
 * readers (upkeep) and the templates: what an entry id, a bullet, a provenance tag, a superseded
 * (struck) entry, a fence, a heading and a frontmatter block look like.
 */

/** An entry id's body: `m-` + 4 to 32 lowercase letters and digits (the bot writes 6). */
const ID_BODY = '[a-z0-9]{4,32}';
export const ENTRY_ID = new RegExp(`^m-${ID_BODY}$`);
/** `[m-1a2b3c] ` at the start of an entry's text (after the bullet). */
export const ID_PREFIX = new RegExp(`^\\[(m-${ID_BODY})\\]\\s*`);
/** A list marker: `- `, `* `, `+ `, `1. `, `1) `. */
export const BULLET = /^(\s*(?:[-*+]|\d{1,3}[.)])\s+)/;
/** `[from: <source>, YYYY-MM-DD]` at the end of an entry (as a pattern: findProvenance is how it is searched for). */
export const PROVENANCE = /\s*\[from:\s*([^\]]*?)\]\s*$/;

/**
 * The provenance tag at the end of a text: where it starts (with the spaces before it) and what it
 * holds after `[from:`, or null. The same match PROVENANCE finds, in time linear in the text: the
 * pattern is tried again at every character of a long run of spaces or tags that ends in no tag (a
 * hand-edited line of 200 kB held the bot for a minute per read).
 */
export function findProvenance(text: string): { index: number; source: string } | null {
  const close = text.trimEnd().length - 1;
  if (close < 1 || text[close] !== ']') return null;
  // Its source holds no `]`: the tag is the first `[from:` after the one before the last.
  const open = text.indexOf('[from:', text.lastIndexOf(']', close - 1) + 1);
  if (open < 0 || open > close) return null;
  let index = open;
  while (index > 0 && /\s/.test(text[index - 1])) index--;
  return { index, source: text.slice(open + '[from:'.length, close).trimStart() };
}

/** The text without its provenance tag. */
export function withoutProvenance(text: string): string {
  const p = findProvenance(text);
  return p ? text.slice(0, p.index) : text;
}

/**
 * A superseded entry's text: `~~[m-old] text~~ → [m-new] (date)`. Group 2, the text, keeps the
 * spaces around it (callers trim it): a pattern that took them too tried every split of a long run.
 */
export const STRUCK_ENTRY = new RegExp(`^~~(?:\\s*\\[(m-${ID_BODY})\\])?([\\s\\S]*?)~~\\s*(?:→|->)\\s*(?:\\[(m-${ID_BODY})\\])?`);
/** Any line whose text (after bullet and id) starts struck through: never a current statement. */
export const STRUCK_LINE = new RegExp(`^\\s*(?:(?:[-*+]|\\d{1,3}[.)])\\s+)?(?:\\[m-${ID_BODY}\\]\\s*)?~~`);
/** A code fence opening or closing line; group 1 is the fence (three or more backticks or tildes). */
export const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
/** An ATX heading; group 1 the hashes, group 2 the text. */
export const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
export const ISO_DATE = /\b(\d{4}-\d{2}-\d{2})\b/;
/**
 * The longest text of one MEMORY.md entry, for consolidation and for "remember that …" alike: a
 * fact in a sentence or two. Longer text fills the recall budget alone (or cannot be recalled whole).
 */
export const MAX_ENTRY_CHARS = 300;

/**
 * The index of the first line after a leading `---` frontmatter block (0 when there is none). Line
 * scanning, for files where the frontmatter only has to be skipped; condensation files, whose values
 * are read, go through frontMatter.ts.
 */
export function frontmatterEnd(lines: string[]): number {
  if (lines.length === 0 || lines[0].trim() !== '---') return 0;
  for (let i = 1; i < lines.length && i < 200; i++) if (/^(---|\.\.\.)\s*$/.test(lines[i])) return i + 1;
  return 0;
}

/** SESSION.md's sections, in order: written by the session refresh, read by the end-of-day block. */
export const SESSION_SECTIONS = {
  goal: 'Goal',
  state: 'Current State',
  links: 'Links and Files',
  questions: 'Open Questions',
  next: 'Next Steps',
  errors: 'Recent Errors and Corrections',
} as const;

/** The text under `## <name>` in a markdown file, up to the next `## ` heading ('' when absent). */
export function sectionText(markdown: string, name: string): string {
  const m = new RegExp(`^## ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[ \\t]*\\r?\\n+([\\s\\S]*?)(?=\\r?\\n## |$(?![\\s\\S]))`, 'm').exec(markdown);
  return m ? m[1].trim() : '';
}
