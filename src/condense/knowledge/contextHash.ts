import crypto from 'node:crypto';

/**
 * The hash line CONTEXT.md and CONTEXT.archive.md carry: what was rendered, so a later read can
 * tell a person's edit from the render, and the "Notes (hand-written)" section kept below it.
 */
export const NOTES_HEADING = '## Notes (hand-written)';
const HASH_LINE = /^<!-- minutes:context-hash ([0-9a-f]{12})\b.*-->[ \t]*$/m;
const NOTES_RE = /^##\s+Notes \(hand-written\)\s*$/m;

export function hashOf(body: string): string {
  return crypto.createHash('sha256').update(body.replace(/\r\n/g, '\n')).digest('hex').slice(0, 12);
}

export function withHashLine(body: string): string {
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
