import path from 'node:path';
import type { RecallItem } from '../recall/types';
import type { Condensation, Unit } from './data';
import { StatusView, statusWords } from '../condense/knowledge/ratify';
import { esc, LinkTarget, Markdown, safeHref } from './html';

/** Page bodies: every value from the data root goes through esc() or the markdown renderer. */
export interface ViewCtx {
  md: Markdown;
  /** A link to a dashboard page (a token, when in use, rides in its cookie, never in a link). */
  href: (p: string) => string;
}

/** A decision's status as a badge: its word, then who said so (the colour only repeats what the words say). */
export function statusBadge(v: StatusView): string {
  const detail = detailOf(v);
  return `<span class="badge s-${esc(v.status)}">${esc(v.status)}</span>${detail ? ` <span class="meta">${esc(detail)}</span>` : ''}`;
}

/** statusWords without its first word (the badge says it). */
function detailOf(v: StatusView): string {
  const words = statusWords(v);
  return words.startsWith(v.status) ? words.slice(v.status.length).replace(/^[:,]?\s*/, '') : words;
}

export function condLink(ctx: ViewCtx, u: Unit, id: string): string {
  return ctx.href(`/channel/${u.key}/c/${encodeURIComponent(id)}`);
}

/**
 * Links inside a channel's files are relative to its folder (`condensations/<file>.md`,
 * `CONTEXT.archive.md`), or for a condensation's own text to `condensations/`: each goes to its
 * dashboard page, and one to anything else (no page for it) is shown as text.
 */
export function channelLinks(ctx: ViewCtx, u: Unit, conds: Condensation[], o: { from?: 'condensations' } = {}): LinkTarget {
  const channel = ctx.href(`/channel/${u.key}`);
  return (href) => {
    let rel: string;
    try {
      rel = decodeURI(href.replace(/[?#].*$/, ''));
    } catch {
      return null;
    }
    rel = path.posix.normalize(o.from ? `${o.from}/${rel}` : rel);
    const cond = /^condensations\/([^/]+)\.md$/.exec(rel);
    if (cond) return conds.some((c) => c.id === cond[1]) ? condLink(ctx, u, cond[1]!) : null;
    if (rel === 'CONTEXT.md' && !u.threadId) return `${channel}/context`;
    if (rel === 'CONTEXT.archive.md' && !u.threadId) return `${channel}/context#context-archive`;
    if (rel === 'HISTORY.md') return `${channel}/history`;
    const pb = /^playbooks\/([a-z0-9-]+)\.md$/.exec(rel);
    if (pb) return `${channel}#playbook-${pb[1]}`;
    return null;
  };
}

export function condensationBody(ctx: ViewCtx, u: Unit, c: Condensation, all: Condensation[]): string {
  const post = safeHref(c.postUrl);
  const fm = Object.entries(c.data)
    .map(
      ([k, v]) =>
        `<tr><th>${esc(k)}</th><td>${esc(Array.isArray(v) ? v.join(', ') : v instanceof Date ? v.toISOString().slice(0, 10) : typeof v === 'object' ? JSON.stringify(v) : v)}</td></tr>`,
    )
    .join('');
  const ref = (id: string): string => (all.some((x) => x.id === id) ? `<a href="${esc(condLink(ctx, u, id))}">${esc(id)}</a>` : esc(id));
  return (
    `<p><a href="${esc(ctx.href(`/channel/${u.key}`))}">← back to the channel</a>${post ? ` · <a href="${esc(post)}" rel="noopener noreferrer">Discord message</a>` : ''}</p>` +
    `<section><h2>Supersedes</h2>${c.supersedes.length ? c.supersedes.map(ref).join(', ') : '<span class="muted">nothing</span>'}</section>` +
    `<section><h2>Superseded by</h2>${c.supersededBy ? ref(c.supersededBy) : '<span class="muted">nothing (current)</span>'}</section>` +
    `<section><h2>As posted</h2><div class="md">${ctx.md(c.body, { links: channelLinks(ctx, u, all, { from: 'condensations' }) })}</div></section>` +
    `<section><h2>Frontmatter</h2>${c.malformed ? `<p>${esc(c.malformed)}</p>` : `<table>${fm}</table>`}</section>`
  );
}

export interface SearchHit {
  unit: Unit;
  label: string;
  /** The search's matches, best first. */
  items: RecallItem[];
  /** Texts of the lines recall would inject for the query (empty when it abstains). */
  injected: Set<string>;
  text: Array<{ c: Condensation; snippet: string }>;
}

export function searchBody(ctx: ViewCtx, q: string, scope: string, semantic: string, hits: SearchHit[]): string {
  const form = `<form method="get"><input name="q" value="${esc(q)}" aria-label="query">${scope ? `<input type="hidden" name="in" value="${esc(scope)}">` : ''} <button>Search</button></form>`;
  if (!q) return form;
  const parts = hits
    .filter((h) => h.items.length || h.text.length)
    .map((h) => {
      const items = h.items
        .map(
          (i) =>
            `<tr><td class="score" data-label="score">${i.score.toFixed(3)}</td><td class="score" data-label="lexical">${i.lexical.toFixed(3)}</td><td class="score" data-label="semantic">${i.semantic === undefined ? '—' : i.semantic.toFixed(3)}</td>` +
            `<td${h.injected.has(i.text) ? ' data-label="injected">yes' : '>'}</td><td class="nowrap">${esc(path.basename(i.file))}</td><td class="text">${esc(ctx.md.text(i.text))}</td></tr>`,
        )
        .join('');
      const injection = h.injected.size
        ? `<p class="muted">The bot would inject ${h.injected.size} line${h.injected.size === 1 ? '' : 's'} for this text (marked).</p>`
        : '<p class="muted">The bot would inject nothing for this text (recall abstains); these are the closest lines.</p>';
      const text = h.text
        .map((t) => `<li><a href="${esc(condLink(ctx, h.unit, t.c.id))}">${esc(t.c.date)} ${esc(t.c.topic)}</a> — ${esc(t.snippet)}</li>`)
        .join('');
      return (
        `<section class="hit"><h2><a href="${esc(ctx.href(`/channel/${h.unit.key}`))}">${esc(h.label)}</a></h2>` +
        `<h3>Memory lines (words and meaning, best first)</h3>${items ? `${injection}<table class="stack"><thead><tr><th>score</th><th>lexical</th><th>semantic</th><th>injected</th><th>file</th><th>text</th></tr></thead><tbody>${items}</tbody></table>` : '<p class="muted">no memory line shares a word or a meaning with the text</p>'}` +
        `<h3>Condensations containing the words</h3><ul>${text || '<li class="muted">none</li>'}</ul></section>`
      );
    })
    .join('');
  return `${form}<p class="muted">recall meaning: ${esc(semantic)}</p>${parts || '<p>No results.</p>'}`;
}
