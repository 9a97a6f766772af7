import crypto from 'node:crypto';
import { z } from 'zod';
import { FrontMatterError, readFrontMatter, writeFrontMatter } from '../memory/frontMatter';
import type { PackageKey } from '../memory/packageKey';
import { schemaProblem } from '../memory/storeErrors';
import { isPackageName } from '../memory/paths';
import { PackageError } from './errors';
import { ContextPackage, MAX_BUDGET, PACKAGE_FORMAT, PackageItem, PackageRecipe, packageTokens } from './model';

/**
 * The package file: a YAML frontmatter manifest (memory/frontMatter.ts), then the items as markdown a person can read.
 *
 *   ---
 *   minutes_package: 1
 *   id: pkg-…            name, title, intent, server, source, created, budget, recipes, size
 *   hash: hmac-sha256:…  over the whole file as written without this line, keyed by the data
 *                        root's own key (memory/packageKey.ts): a plain hash anyone could
 *                        recompute after editing an item; this only a writer of this data root
 *   ---
 *   # <title>
 *
 *   Intent: <intent>
 *
 *   ## Items
 *
 *   ### 1. MEMORY.md · m-1a2b3c
 *
 *   - channel: local/orders-team
 *   - file: MEMORY.md
 *   - entry: m-1a2b3c
 *   - date: 2026-11-16
 *   - recipe: 1
 *
 *   > the item's words, every line quoted
 *
 * The file is written by `renderPackage` alone, so a file is valid only if rendering what it parses
 * to gives it back byte for byte: anything else was edited (the hash says so) or is not a package.
 * A file signed before the key existed (`sha256:`), by another data root, or edited since, parses;
 * it is just not called signed (`hashOk: false`).
 */

const SIGNATURE_PREFIX = 'hmac-sha256:';

const Recipe = z.union([z.strictObject({ query: z.string().min(1) }), z.strictObject({ items: z.array(z.string().min(1)).min(1) })]);

const Manifest = z.strictObject({
  minutes_package: z.literal(PACKAGE_FORMAT),
  id: z.string().regex(/^pkg-[0-9a-f]{12}$/),
  name: z.string().refine(isPackageName, 'not a package name'),
  title: z.string(),
  intent: z.string(),
  server: z.string().regex(/^(?:local|[0-9]{1,20})$/),
  source: z.strictObject({ channel: z.string().min(1), private_thread: z.literal(true).optional() }),
  created: z.string(),
  created_by: z.string(),
  refreshed: z.string().optional(),
  imported: z.strictObject({ from_server: z.string(), at: z.string(), unverified: z.literal(true).optional() }).optional(),
  budget: z.strictObject({
    max_items: z.number().int().min(1).max(MAX_BUDGET.maxItems),
    max_tokens: z.number().int().min(1).max(MAX_BUDGET.maxTokens),
  }),
  recipes: z.array(Recipe).min(1),
  size: z.strictObject({ items: z.number().int().min(0), tokens: z.number().int().min(0) }),
  hash: z.string(),
});
type Manifest = z.infer<typeof Manifest>;

/** The file's text, signed with the data root's key. */
export function renderPackage(p: ContextPackage, key: PackageKey): string {
  return render(p, packageSignature(p, key));
}

/** What a file this data root wrote declares as its hash, for a package (the one renderPackage writes). */
export function packageSignature(p: ContextPackage, key: PackageKey): string {
  return SIGNATURE_PREFIX + crypto.createHmac('sha256', key).update(render(p, undefined), 'utf8').digest('hex');
}

function render(p: ContextPackage, hash: string | undefined): string {
  const data: Record<string, unknown> = {
    minutes_package: PACKAGE_FORMAT,
    id: p.id,
    name: p.name,
    title: p.title,
    intent: p.intent,
    server: p.server,
    source: { channel: p.source.channel, ...(p.source.privateThread ? { private_thread: true } : {}) },
    created: p.created,
    created_by: p.createdBy,
    ...(p.refreshed ? { refreshed: p.refreshed } : {}),
    ...(p.imported ? { imported: { from_server: p.imported.fromServer, at: p.imported.at, ...(p.imported.unverified ? { unverified: true } : {}) } } : {}),
    budget: { max_items: p.budget.maxItems, max_tokens: p.budget.maxTokens },
    recipes: p.recipes.map((r) => (r.kind === 'query' ? { query: r.query } : { items: r.items })),
    size: { items: p.items.length, tokens: packageTokens(p.items) },
    ...(hash !== undefined ? { hash } : {}),
  };
  // `lineWidth: -1`: a long title stays on one line, so the file reads back as it was written.
  return writeFrontMatter(renderBody(p), data, { lineWidth: -1 });
}

function renderBody(p: ContextPackage): string {
  const out = [`# ${p.title}`, ''];
  if (p.intent) out.push(`Intent: ${p.intent}`, '');
  out.push('## Items', '');
  if (!p.items.length) out.push('_(no items)_', '');
  p.items.forEach((it, i) => {
    out.push(`### ${i + 1}. ${it.file}${it.entry ? ` · ${it.entry}` : ''}`, '');
    out.push(`- channel: ${it.channel}`, `- file: ${it.file}`);
    if (it.entry) out.push(`- entry: ${it.entry}`);
    if (it.date) out.push(`- date: ${it.date}`);
    out.push(`- recipe: ${it.recipe}`, '');
    for (const line of it.text.split('\n')) out.push(line ? `> ${line}` : '>');
    out.push('');
  });
  return out.join('\n');
}

/**
 * The package in a file, checked: its format (manifest, items) and its signature against `key`
 * (`hashOk`; never true without a key). A file whose signature does not verify is still read (a
 * package edited by hand in the data root; explain says so); `laidOut` says whether rendering it
 * gives the file back byte for byte (an import insists), which a signed file must. A malformed one
 * is refused.
 */
export function parsePackage(text: string, o: { key?: PackageKey | null; label?: string } = {}): { pkg: ContextPackage; hashOk: boolean; laidOut: boolean } {
  const label = o.label ?? 'the file';
  const bad = (why: string) => new PackageError('bad-format', `${label} is not a context package Minutes wrote (${why}); export it again from its server`);
  if (!/^---\r?\n/.test(text)) throw bad('no frontmatter manifest at the top');
  let parsed: { data: Record<string, unknown>; content: string };
  try {
    parsed = readFrontMatter(text, label);
  } catch (err) {
    if (err instanceof FrontMatterError) throw bad(`malformed front matter: ${err.why}`);
    throw err;
  }
  const checked = Manifest.safeParse(parsed.data);
  if (!checked.success) throw bad(`manifest ${schemaProblem(checked.error.issues)}`);
  const m = checked.data;
  const pkg: ContextPackage = {
    id: m.id,
    name: m.name,
    title: m.title,
    intent: m.intent,
    server: m.server,
    source: { channel: m.source.channel, ...(m.source.private_thread ? { privateThread: true } : {}) },
    created: m.created,
    createdBy: m.created_by,
    ...(m.refreshed ? { refreshed: m.refreshed } : {}),
    ...(m.imported ? { imported: { fromServer: m.imported.from_server, at: m.imported.at, ...(m.imported.unverified ? { unverified: true } : {}) } } : {}),
    budget: { maxItems: m.budget.max_items, maxTokens: m.budget.max_tokens },
    recipes: m.recipes.map((r): PackageRecipe => ('query' in r ? { kind: 'query', query: r.query } : { kind: 'items', items: r.items })),
    items: parseItems(parsed.content, bad),
  };
  if (pkg.items.some((it) => it.recipe > pkg.recipes.length)) throw bad('an item names a recipe the manifest does not have');
  const hashOk = !!o.key && sameText(m.hash, packageSignature(pkg, o.key));
  // With the declared hash as it stands: an edited item's words are an edit (unsigned), not a layout problem.
  const laidOut = render(pkg, m.hash) === text;
  if (hashOk && !laidOut) throw bad('it is not laid out as Minutes writes it');
  return { pkg, hashOk, laidOut };
}

const META = /^- (channel|file|entry|date|recipe): (.+)$/;

function parseItems(content: string, bad: (why: string) => PackageError): PackageItem[] {
  const lines = content.split('\n');
  const start = lines.indexOf('## Items');
  if (start < 0) throw bad('no "## Items" section');
  const items: PackageItem[] = [];
  let cur: { meta: Record<string, string>; text: string[] } | null = null;
  const flush = () => {
    if (!cur) return;
    const { meta } = cur;
    if (!meta.channel || !meta.file || !meta.recipe) throw bad(`item ${items.length + 1} lacks its channel, file or recipe`);
    const recipe = Number(meta.recipe);
    if (!Number.isInteger(recipe) || recipe < 1) throw bad(`item ${items.length + 1} has a bad recipe number`);
    if (meta.date && !/^\d{4}-\d{2}-\d{2}$/.test(meta.date)) throw bad(`item ${items.length + 1} has a bad date`);
    items.push({
      text: cur.text.join('\n'),
      channel: meta.channel,
      file: meta.file,
      ...(meta.entry ? { entry: meta.entry } : {}),
      ...(meta.date ? { date: meta.date } : {}),
      recipe,
    });
    cur = null;
  };
  for (const line of lines.slice(start + 1)) {
    if (/^### \d+\. /.test(line)) {
      flush();
      cur = { meta: {}, text: [] };
      continue;
    }
    if (!cur) continue;
    const meta = META.exec(line);
    if (meta && !cur.text.length) cur.meta[meta[1]] = meta[2];
    else if (line === '>' || line.startsWith('> ')) cur.text.push(line.slice(2));
    else if (line.trim()) throw bad(`item ${items.length + 1} has a line that is neither provenance nor quoted text`);
  }
  flush();
  return items;
}

/** Compared in constant time: how long a refusal takes says nothing about how much of a signature was right. */
function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}
