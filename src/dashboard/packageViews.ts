import type { Explained } from '../packages/explain';
import { describeRecipe, estimateTokens } from '../packages/model';
import type { PackageSummary } from '../packages/library';
import { refFromLabel } from '../packages/refs';
import type { Names } from './data';
import { esc } from './html';
import type { ViewCtx } from './views';

/**
 * The dashboard's pages for context packages: every server's packages, and one package explained
 * (items with their provenance and recipe, size against the budget, where it is active). A private
 * thread's packages are never listed or shown here (they are usable only in that thread). Package
 * text is untrusted: every value is escaped, and items are shown as the text a reader sees (the
 * markdown rendered, then its tags dropped), never as rendered markdown: an imported item makes no link.
 */
export interface PackageRow {
  server: string;
  serverLabel: string;
  /** The names the bot recorded for the server (none for the console). */
  names: Names;
  pkg: PackageSummary;
}

/**
 * A conversation's label (`111/222`, `111/222/threads/333`, `local/orders-team`) by the names the
 * bot recorded for the package's server: `#backend`, `#backend › thread 333`; the label itself for
 * a console channel, another server's conversation, or one it has no name for.
 */
export function conversationName(label: string, server: string, names: Names): string {
  const ref = refFromLabel(label);
  if (!ref || ref.kind === 'local' || ref.guildId !== server) return label;
  const channel = names.channels[ref.channelId];
  if (!channel) return label;
  if (!ref.threadId) return `#${channel}`;
  const thread = names.channels[ref.threadId];
  return `#${channel} › ${thread ? thread : `thread ${ref.threadId}`}`;
}

export function packagesBody(ctx: ViewCtx, rows: PackageRow[]): string {
  if (!rows.length) return '<p>No context packages in this data folder yet (<code>minutes pack create</code>, or <code>/pack create</code> in a channel).</p>';
  const tr = rows
    .map(
      (r) =>
        `<tr><td>${esc(r.serverLabel)}</td><td><a href="${esc(ctx.href(`/package/${r.server}/${r.pkg.name}`))}">${esc(r.pkg.name)}</a></td>` +
        `<td>${esc(r.pkg.title)}${r.pkg.imported ? ' <span class="flag">imported with --trust</span>' : ''}</td><td>${esc(conversationName(r.pkg.source, r.server, r.names))}</td><td>${r.pkg.items}</td><td>~${r.pkg.tokens}</td></tr>`,
    )
    .join('');
  return `<table><thead><tr><th>Server</th><th>Package</th><th>Title</th><th>Made from</th><th>Items</th><th>Tokens</th></tr></thead><tbody>${tr}</tbody></table>`;
}

export function packageBody(ctx: ViewCtx, e: Explained, names: Names): string {
  const p = e.pkg;
  const named = (label: string) => conversationName(label, p.server, names);
  const facts = [
    // A default intent names its conversation by label ("What 111/222 knows about: …").
    p.intent ? `<p>${esc(p.intent.replace(/\b\d{1,20}\/\d{1,20}(?:\/threads\/\d{1,20})?\b/g, named))}</p>` : '',
    `<p>Made from ${esc(named(p.source.channel))} on ${esc(p.created.slice(0, 10))} by ${esc(p.createdBy)}` +
      (p.refreshed ? `; refreshed ${esc(p.refreshed.slice(0, 10))}` : '') +
      (p.imported
        ? `; imported${p.imported.unverified ? ' with --trust' : ''} from ${esc(p.imported.fromServer)} on ${esc(p.imported.at.slice(0, 10))}` +
          (p.imported.unverified ? ' <span class="flag">Not signed by this data root when it came in.</span>' : '')
        : '') +
      `. ${p.items.length} of ${p.budget.maxItems} items, ~${e.tokens} of ${p.budget.maxTokens} tokens.` +
      (e.hashOk ? '' : ' <span class="flag">Not signed by this data root (edited by hand, copied in, or written before packages were signed).</span>') +
      '</p>',
    `<p>Active in: ${e.activeIn.length ? e.activeIn.map((a) => `${esc(named(a.conversation))} (since ${esc(a.since.slice(0, 10))}, by ${esc(a.by)})`).join(', ') : 'nowhere'}</p>`,
    `<h2>Recipes</h2><ol>${p.recipes.map((r) => `<li>${esc(describeRecipe(r))}</li>`).join('')}</ol>`,
  ];
  const items = p.items
    .map(
      (it) =>
        `<tr><td><pre>${esc(ctx.md.lines(it.text))}</pre></td><td>${esc([it.channel && named(it.channel), it.file, it.entry, it.date].filter(Boolean).join(' · '))}</td>` +
        `<td>${it.recipe}</td><td>~${estimateTokens(it.text)}</td></tr>`,
    )
    .join('');
  return `${facts.join('')}<h2>Items</h2><table><thead><tr><th>Item</th><th>From</th><th>Recipe</th><th>Tokens</th></tr></thead><tbody>${items}</tbody></table>`;
}
