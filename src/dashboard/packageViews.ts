import type { Explained } from '../packages/explain';
import { describeRecipe, estimateTokens } from '../packages/model';
import type { PackageSummary } from '../packages/library';
import { esc } from './html';
import type { ViewCtx } from './views';

/**
 * The dashboard's pages for context packages: every server's packages, and one package explained
 * (items with their provenance and recipe, size against the budget, where it is active). A private
 * thread's packages are never listed or shown here (they are usable only in that thread). Package
 * text is untrusted: every value is escaped, and items are shown as text, not rendered markdown.
 */
export interface PackageRow {
  server: string;
  serverLabel: string;
  pkg: PackageSummary;
}

export function packagesBody(ctx: ViewCtx, rows: PackageRow[]): string {
  if (!rows.length) return '<p>No context packages in this data folder yet (<code>minutes pack create</code>, or <code>/pack create</code> in a channel).</p>';
  const tr = rows
    .map(
      (r) =>
        `<tr><td>${esc(r.serverLabel)}</td><td><a href="${esc(ctx.href(`/package/${r.server}/${r.pkg.name}`))}">${esc(r.pkg.name)}</a></td>` +
        `<td>${esc(r.pkg.title)}${r.pkg.imported ? ' <span class="flag">imported with --trust</span>' : ''}</td><td>${esc(r.pkg.source)}</td><td>${r.pkg.items}</td><td>~${r.pkg.tokens}</td></tr>`,
    )
    .join('');
  return `<table><thead><tr><th>Server</th><th>Package</th><th>Title</th><th>Made from</th><th>Items</th><th>Tokens</th></tr></thead><tbody>${tr}</tbody></table>`;
}

export function packageBody(e: Explained): string {
  const p = e.pkg;
  const facts = [
    p.intent ? `<p>${esc(p.intent)}</p>` : '',
    `<p>Made from <code>${esc(p.source.channel)}</code> on ${esc(p.created.slice(0, 10))} by ${esc(p.createdBy)}` +
      (p.refreshed ? `; refreshed ${esc(p.refreshed.slice(0, 10))}` : '') +
      (p.imported
        ? `; imported${p.imported.unverified ? ' with --trust' : ''} from ${esc(p.imported.fromServer)} on ${esc(p.imported.at.slice(0, 10))}` +
          (p.imported.unverified ? ' <span class="flag">Not signed by this data root when it came in.</span>' : '')
        : '') +
      `. ${p.items.length} of ${p.budget.maxItems} items, ~${e.tokens} of ${p.budget.maxTokens} tokens.` +
      (e.hashOk ? '' : ' <span class="flag">Not signed by this data root (edited by hand, copied in, or written before packages were signed).</span>') +
      '</p>',
    `<p>Active in: ${e.activeIn.length ? e.activeIn.map((a) => `<code>${esc(a.conversation)}</code> (since ${esc(a.since.slice(0, 10))}, by ${esc(a.by)})`).join(', ') : 'nowhere'}</p>`,
    `<h2>Recipes</h2><ol>${p.recipes.map((r) => `<li>${esc(describeRecipe(r))}</li>`).join('')}</ol>`,
  ];
  const items = p.items
    .map(
      (it) =>
        `<tr><td><pre>${esc(it.text)}</pre></td><td>${esc([it.channel, it.file, it.entry, it.date].filter(Boolean).join(' · '))}</td>` +
        `<td>${it.recipe}</td><td>~${estimateTokens(it.text)}</td></tr>`,
    )
    .join('');
  return `${facts.join('')}<h2>Items</h2><table><thead><tr><th>Item</th><th>From</th><th>Recipe</th><th>Tokens</th></tr></thead><tbody>${items}</tbody></table>`;
}
