import { NAMES } from '../../memory/layout';
import { hashOf, NOTES_HEADING, splitContext, withHashLine } from './contextHash';
import type { Playbook, PlaybookVersion } from './playbooks';

/**
 * A playbook's file (`playbooks/<slug>.md`), drawn by code from context.json: the steps in force,
 * where each version came from, and every earlier version with its steps struck through, so a
 * changed procedure is never changed silently. Like CONTEXT.md it carries a hash line, and lines a
 * person changed or added are kept under "Notes (hand-written)" when it is drawn again.
 */
const flat = (s: string) => s.replace(/\s*[\r\n]+\s*/g, ' ').trim();

function source(v: PlaybookVersion): string {
  return v.file ? `[${v.file}](../${NAMES.condensations}/${encodeURI(v.file)})` : `condensation ${v.decisionId}`;
}

export function renderPlaybook(p: Playbook): string {
  const cur = p.versions[p.versions.length - 1];
  const out = [`# Playbook: ${flat(p.name)}`, '', '## Steps', ''];
  cur.steps.forEach((s, i) => out.push(`${i + 1}. ${flat(s)}`));
  out.push('', `_In force since ${cur.date}, from ${source(cur)}._`, '', '## Provenance', '');
  p.versions.forEach((v, i) => out.push(`- ${v.date}: ${i === 0 ? 'filed' : 'changed'} by ${source(v)}`));
  if (p.versions.length > 1) {
    out.push('', '## Earlier Versions');
    // Newest first: the version just replaced is the one a reader looks for.
    for (let i = p.versions.length - 2; i >= 0; i--) {
      const v = p.versions[i];
      out.push('', `### ${v.date} until ${p.versions[i + 1].date}`, '');
      v.steps.forEach((s, j) => out.push(`${j + 1}. ~~${flat(s)}~~`));
    }
  }
  return out.join('\n') + '\n';
}

/**
 * The whole new file: the render of `next`, its hash line, and the Notes section (what was there,
 * plus lines a person edited since the last render: lines neither render contains).
 */
export function composePlaybook(current: string | null, prev: Playbook | undefined, next: Playbook): string {
  const body = renderPlaybook(next);
  const notes = current ? splitContext(current).notes : [];
  if (current) {
    const { main, hash } = splitContext(current);
    if (hash === undefined || hashOf(main) !== hash) {
      const known = new Set([...(prev ? renderPlaybook(prev).split('\n') : []), ...body.split('\n')].map((l) => l.trim()));
      const have = new Set(notes.map((l) => l.trim()));
      for (const l of main.split('\n')) {
        if (!l.trim() || known.has(l.trim()) || have.has(l.trim())) continue;
        notes.push(l.replace(/^\s{0,3}#{1,2}\s+/, '### '));
        have.add(l.trim());
      }
    }
  }
  const rendered = withHashLine(body);
  return notes.length ? `${rendered}\n${NOTES_HEADING}\n\n${notes.join('\n')}\n` : rendered;
}
