import type { ContextData } from './contextData';
import { hashOf, NOTES_HEADING, splitContext, withHashLine } from './contextHash';
import { ARCHIVE_DOC, ContextDocKind, MAIN_DOC, STATUS_SUFFIX } from './contextRender';

/**
 * Composing a new CONTEXT.md (or its archive) without losing a person's edit: lines changed or
 * added by hand since the last render move under "Notes (hand-written)".
 */

/**
 * Lines a person changed or added in the generated part: lines of the file that the previous
 * render (or the template) did not contain and the new render does not contain either.
 */
export function handEditedLines(current: string, previous: ContextData, next: ContextData, kind: ContextDocKind = MAIN_DOC): string[] {
  const { main, hash } = splitContext(current);
  if (hash !== undefined && hashOf(main) === hash) return [];
  const known = new Set<string>();
  // Each decision line also as rendered before decisions had a status: a file from then is not a hand edit.
  const addAll = (t: string) => t.split('\n').forEach((l) => known.add(l.trim()).add(l.trim().replace(STATUS_SUFFIX, '')));
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
