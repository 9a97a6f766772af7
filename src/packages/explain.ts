import type { PackageServer } from '../memory/layout';
import type { ChannelRef } from '../memory/paths';
import type { ChannelStore } from '../memory/store';
import { whereActive } from './activation';
import { Gathered, PackageSummary, readPackage, Refreshed } from './library';
import { ContextPackage, describeRecipe, estimateTokens, PackageItem, packageTokens } from './model';

/**
 * What a package holds and why, for a person (`/pack explain`, `minutes pack explain`) and for a
 * script (`--json`): its items with the recipe that picked each and their provenance, its size
 * against its budget, whether this data root signed its file and whether it is its own or came in
 * on `--trust`, and where it is active.
 */
export interface Explained {
  pkg: ContextPackage;
  /** This data root's key signed the file. */
  hashOk: boolean;
  tokens: number;
  activeIn: { conversation: string; since: string; by: string }[];
}

export async function explainPackage(store: ChannelStore, server: PackageServer, name: string, viewer?: ChannelRef): Promise<Explained> {
  const { pkg, hashOk } = await readPackage(store, server, name, viewer);
  const active = await whereActive(store, server, name);
  return {
    pkg,
    hashOk,
    tokens: packageTokens(pkg.items),
    activeIn: active.map((a) => ({ conversation: a.conversation, since: a.since, by: a.by })),
  };
}

/** The `--json` shape (one line): stable field names a script may rely on. */
export function explainJson(e: Explained): Record<string, unknown> {
  const p = e.pkg;
  return {
    name: p.name,
    id: p.id,
    title: p.title,
    intent: p.intent,
    server: p.server,
    source: { channel: p.source.channel, privateThread: p.source.privateThread === true },
    created: p.created,
    createdBy: p.createdBy,
    ...(p.refreshed ? { refreshed: p.refreshed } : {}),
    ...(p.imported ? { imported: p.imported } : {}),
    budget: p.budget,
    size: { items: p.items.length, tokens: e.tokens },
    hashOk: e.hashOk,
    // This data root's own: signed by it, and not taken in on --trust.
    own: e.hashOk && p.imported?.unverified !== true,
    recipes: p.recipes.map((r, i) => ({ recipe: i + 1, ...(r.kind === 'query' ? { query: r.query } : { items: r.items }) })),
    activeIn: e.activeIn,
    items: p.items.map((it) => ({ ...it, tokens: estimateTokens(it.text) })),
  };
}

export function formatExplain(e: Explained): string {
  const p = e.pkg;
  const lines = [`Package ${p.name} (${p.id}): ${p.title}`];
  if (p.intent) lines.push(`Intent: ${p.intent}`);
  lines.push(
    `Made from ${p.source.channel}${p.source.privateThread ? ' (a private thread: usable only there)' : ''} on ${p.created.slice(0, 10)} by ${p.createdBy}` +
      (p.refreshed ? `; refreshed ${p.refreshed.slice(0, 10)}` : '') +
      (p.imported
        ? `; imported${p.imported.unverified ? ' with --trust' : ''} from ${p.imported.fromServer === 'local' ? 'the console channels' : `server ${p.imported.fromServer}`} on ${p.imported.at.slice(0, 10)}` +
          (p.imported.unverified ? ' (not signed by this data root when it came in)' : '')
        : ''),
  );
  lines.push(`Size: ${p.items.length} of ${p.budget.maxItems} items, ~${e.tokens} of ${p.budget.maxTokens} tokens`);
  if (!e.hashOk)
    lines.push(
      "Signature: not this data root's (the file was edited by hand, copied in, or written before packages were signed; /pack refresh signs it again)",
    );
  lines.push('Recipes:', ...p.recipes.map((r, i) => `  ${i + 1}. ${describeRecipe(r)}`));
  lines.push(
    e.activeIn.length
      ? `Active in: ${e.activeIn.map((a) => `${a.conversation} (since ${a.since.slice(0, 10)}, by ${a.by})`).join('; ')}`
      : 'Active in: nowhere yet (/pack activate NAME in a conversation of this server)',
  );
  lines.push('Items:');
  if (!p.items.length) lines.push('  (none: its recipes found nothing at the last refresh)');
  p.items.forEach((it, i) => lines.push(...itemLines(it, i, p)));
  return lines.join('\n');
}

function itemLines(it: PackageItem, i: number, p: ContextPackage): string[] {
  const where = [it.channel, it.file, it.entry, it.date].filter(Boolean).join(' · ');
  const text = it.text.replace(/\s+/g, ' ');
  return [
    `  ${i + 1}. ${where} (recipe ${it.recipe}: ${describeRecipe(p.recipes[it.recipe - 1])}; ~${estimateTokens(it.text)} tokens)`,
    `     ${text.length > 200 ? `${text.slice(0, 199)}…` : text}`,
  ];
}

export function formatCreated(g: Gathered): string {
  const p = g.pkg;
  const lines = [`Created package ${p.name} from ${p.source.channel}: ${p.items.length} items, ~${packageTokens(p.items)} tokens.`];
  p.items.forEach((it, i) => lines.push(`  ${i + 1}. ${short(it)}`));
  if (g.leftOut.length)
    lines.push(
      `Left out by the budget (${p.budget.maxItems} items, ${p.budget.maxTokens} tokens): ${g.leftOut.length} more (${g.leftOut.map(where).slice(0, 5).join('; ')}${g.leftOut.length > 5 ? '; …' : ''})`,
    );
  if (p.source.privateThread) lines.push('It holds items from a private thread: it can be activated only in that thread, and never exported.');
  return lines.join('\n');
}

export function formatRefreshed(r: Refreshed): string {
  const name = r.pkg.name;
  if (!r.changed) return `Package ${name} is up to date: its recipes found the same ${r.pkg.items.length} items.`;
  const lines = [`Refreshed package ${name}: ${r.added.length} added, ${r.removed.length} removed, ${r.unchanged} unchanged.`];
  for (const it of r.added) lines.push(`  + ${short(it)}`);
  for (const it of r.removed) lines.push(`  - ${short(it)}`);
  return lines.join('\n');
}

export function formatList(list: PackageSummary[]): string {
  if (!list.length) return 'No packages yet: /pack create NAME <words> (or minutes pack create) makes one.';
  return list
    .map((s) =>
      s.problem
        ? `${s.name}: cannot be read (${s.problem})`
        : `${s.name}: ${s.title} (from ${s.source}${s.privateThread ? ', private thread' : ''}${s.imported ? '; imported with --trust' : ''}${s.signed ? '' : '; not signed by this data root'}; ${s.items} items, ~${s.tokens} tokens)`,
    )
    .join('\n');
}

function where(it: PackageItem): string {
  return [it.file, it.entry].filter(Boolean).join(' · ');
}

function short(it: PackageItem): string {
  const text = it.text.replace(/\s+/g, ' ');
  return `[${where(it)}] ${text.length > 100 ? `${text.slice(0, 99)}…` : text}`;
}
