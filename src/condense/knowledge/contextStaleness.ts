import { NAMES } from '../../memory/layout';
import type { ContextData } from './contextData';
import { hashOf, splitContext } from './contextHash';
import { archiveNeeded, ARCHIVE_DOC, ContextDocKind, MAIN_DOC } from './contextRender';

/** Whether CONTEXT.md and its archive still are what context.json renders (the audit's check). */

/** Why CONTEXT.md differs from what context.json renders; null when it is current. */
export function contextStaleness(current: string | null, data: ContextData): string | null {
  if (current === null) return data.decisions.length ? 'CONTEXT.md is missing' : null;
  return docStaleness(MAIN_DOC, current, data, data.decisions.length > 0 || data.currentState !== undefined);
}

/** The same for CONTEXT.archive.md, which exists only once a list outgrew CONTEXT.md. */
export function archiveStaleness(current: string | null, data: ContextData): string | null {
  if (current === null) return archiveNeeded(data) ? `${NAMES.contextArchive} is missing` : null;
  return docStaleness(ARCHIVE_DOC, current, data, true);
}

function docStaleness(kind: ContextDocKind, current: string, data: ContextData, hasContent: boolean): string | null {
  const { main, hash } = splitContext(current);
  if (hash === undefined) return hasContent ? `${kind.name} was not rendered from .minutes/context.json` : null;
  if (hashOf(main) !== hash) return `${kind.name} was edited by hand since it was rendered`;
  if (main !== kind.render(data)) return `${kind.name} is out of date with .minutes/context.json`;
  return null;
}
