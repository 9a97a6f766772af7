import crypto from 'node:crypto';
import { z } from 'zod';
import { normalizeForCompare } from '../../memory/entries';
import { slugify } from '../condensation/render';

/**
 * Playbooks: procedures a discussion agreed on ("Cut a release": its steps in order), kept in
 * `.minutes/context.json` with every version a condensation gave them, so a later condensation that
 * changes the procedure adds a version and the old steps stay readable (struck through in the
 * playbook's file, playbookFile.ts). A playbook is known by the slug of its name. All pure.
 */
export const PlaybookVersion = z.looseObject({
  steps: z.array(z.string()),
  date: z.string(),
  /** The condensation (its decision id) that filed or changed the playbook. */
  decisionId: z.string(),
  /** That condensation's file. */
  file: z.string().optional(),
});
export type PlaybookVersion = z.infer<typeof PlaybookVersion>;

export const Playbook = z.looseObject({
  /** The file name's stem (`playbooks/<slug>.md`), from the name. */
  slug: z.string(),
  /** As the latest version's condensation wrote it. */
  name: z.string(),
  /** Oldest first; the last is in force. */
  versions: z.array(PlaybookVersion).min(1),
  /** The MEMORY.md entry that names it and its file. */
  memoryId: z.string().optional(),
});
export type Playbook = z.infer<typeof Playbook>;

export function playbookSlug(name: string): string {
  const s = slugify(name);
  if (s !== 'condensation' || /condensation/i.test(name)) return s;
  // A name without a Latin letter or digit ("发布流程"): its own slug all the same.
  return `playbook-${crypto.createHash('sha256').update(normalizeForCompare(name)).digest('hex').slice(0, 8)}`;
}

export function currentVersion(p: Playbook): PlaybookVersion {
  return p.versions[p.versions.length - 1];
}

function sameSteps(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((s, i) => normalizeForCompare(s) === normalizeForCompare(b[i]));
}

export interface FoldPlaybooks {
  decisionId: string;
  file?: string;
  date: string;
  raw: { name: string; steps: string[] }[];
}

/**
 * Files new playbooks and adds a version to those whose steps changed. Idempotent: a version this
 * condensation already added is replaced, not added twice (a resumed run), and the same steps again
 * add nothing.
 */
export function foldPlaybooks(prev: Playbook[], f: FoldPlaybooks): Playbook[] {
  const out = prev.map((p) => ({ ...p, versions: p.versions.map((v) => ({ ...v })) }));
  for (const r of f.raw) {
    const steps = r.steps.map((s) => s.replace(/\s+/g, ' ').trim()).filter(Boolean);
    const name = r.name.replace(/\s+/g, ' ').trim();
    if (!name || !steps.length) continue;
    const version: PlaybookVersion = { steps, date: f.date, decisionId: f.decisionId, ...(f.file ? { file: f.file } : {}) };
    const slug = playbookSlug(name);
    const p = out.find((x) => x.slug === slug);
    if (!p) {
      out.push({ slug, name, versions: [version] });
      continue;
    }
    const last = currentVersion(p);
    if (last.decisionId === f.decisionId) p.versions[p.versions.length - 1] = version;
    else if (!sameSteps(last.steps, steps)) p.versions.push(version);
    else continue;
    p.name = name;
  }
  return out;
}

/** Playbooks a condensation filed (`previous` absent) or changed, going from `prev` to `next`. */
export function changedPlaybooks(prev: { playbooks?: Playbook[] }, next: { playbooks?: Playbook[] }): { playbook: Playbook; previous?: PlaybookVersion }[] {
  const before = new Map((prev.playbooks ?? []).map((p) => [p.slug, p]));
  const out: { playbook: Playbook; previous?: PlaybookVersion }[] = [];
  for (const p of next.playbooks ?? []) {
    const b = before.get(p.slug);
    if (!b) out.push({ playbook: p });
    else if (b.versions.length !== p.versions.length || !sameSteps(currentVersion(b).steps, currentVersion(p).steps))
      out.push({ playbook: p, previous: p.versions.length > 1 ? p.versions[p.versions.length - 2] : undefined });
  }
  return out;
}

/** Most recently changed first; ties keep the order they were filed in, later first. */
export function byLastChange(ps: Playbook[] | undefined): Playbook[] {
  return (ps ?? [])
    .map((p, i) => ({ p, i }))
    .sort((a, b) => currentVersion(b.p).date.localeCompare(currentVersion(a.p).date) || b.i - a.i)
    .map((e) => e.p);
}

/** "freeze the branch → run the checklist → tag it", clipped for one line. */
export function stepsInline(steps: string[], max = 300): string {
  const s = steps.map((x) => x.replace(/\s+/g, ' ').trim()).join(' → ');
  return s.length <= max ? s : `${s.slice(0, max - 1).trimEnd()}…`;
}
