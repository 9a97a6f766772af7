import path from 'node:path';
import type { MemoryLine } from '../memory/entries';
import type { RecallItem } from '../recall/types';
import { chainOf, Condensation, Unit } from './data';
import type { OpenQuestion } from '../condense/knowledge/openQuestions';
import type { Playbook } from '../condense/knowledge/playbooks';
import type { ContextDecision } from '../condense/knowledge/contextData';
import { statusAsOf, statusWords } from '../condense/knowledge/ratify';
import { esc, LinkTarget, Markdown, safeHref } from './html';
import { timelineSvg } from './timeline';

/** Page bodies: every value from the data root goes through esc() or the markdown renderer. */
export interface ViewCtx {
  md: Markdown;
  /** A link to a dashboard page (a token, when in use, rides in its cookie, never in a link). */
  href: (p: string) => string;
}

export interface HomeRow {
  unit: Unit;
  label: string;
  guildLabel: string;
  decisions: number;
  newest?: string;
  flags: string[];
}

export function homeBody(ctx: ViewCtx, rows: HomeRow[]): string {
  if (rows.length === 0) return '<p>No channels in this data folder yet.</p>';
  const tr = rows
    .map(
      (r) =>
        `<tr><td>${esc(r.guildLabel)}</td><td><a href="${esc(ctx.href(`/channel/${r.unit.key}`))}">${esc(r.label)}</a></td>` +
        `<td>${r.decisions}</td><td class="nowrap">${esc(r.newest ?? '—')}</td><td class="flag">${r.flags.map(esc).join('<br>')}</td></tr>`,
    )
    .join('');
  return `<table><thead><tr><th>Server</th><th>Channel</th><th>Decisions</th><th>Newest</th><th>Audit</th></tr></thead><tbody>${tr}</tbody></table>`;
}

function condLink(ctx: ViewCtx, u: Unit, id: string): string {
  return ctx.href(`/channel/${u.key}/c/${encodeURIComponent(id)}`);
}

/**
 * Links inside a channel's files are relative to its folder (`condensations/<file>.md`,
 * `CONTEXT.archive.md`), or for a condensation's own text to `condensations/`: each goes to its
 * dashboard page, and one to anything else (no page for it) is shown as text.
 */
function channelLinks(ctx: ViewCtx, u: Unit, conds: Condensation[], o: { from?: 'condensations' } = {}): LinkTarget {
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
    if (rel === 'CONTEXT.md' && !u.threadId) return `${channel}#context`;
    if (rel === 'CONTEXT.archive.md' && !u.threadId) return `${channel}#context-archive`;
    const pb = /^playbooks\/([a-z0-9-]+)\.md$/.exec(rel);
    if (pb) return `${channel}#playbook-${pb[1]}`;
    return null;
  };
}

export function channelBody(
  ctx: ViewCtx,
  u: Unit,
  o: {
    context: string | null;
    archive: string | null;
    conds: Condensation[];
    memory: MemoryLine[];
    history: string | null;
    filter: string;
    questions?: OpenQuestion[];
    playbooks?: Playbook[];
    /** context.json's decisions: what members said of each (ratified by whom…) is shown beside its condensation. */
    decisions?: ContextDecision[];
  },
): string {
  const links = channelLinks(ctx, u, o.conds);
  const byFile = new Map((o.decisions ?? []).filter((d) => d.kind === 'decision' && d.file).map((d) => [d.file as string, d]));
  const said = (c: Condensation) => {
    const d = byFile.get(c.file);
    return d && !c.supersededBy ? ` <span class="muted">${esc(statusWords(statusAsOf(d)))}</span>` : '';
  };
  const list = [...o.conds]
    .reverse()
    .map((c) => {
      const post = safeHref(c.postUrl);
      const title = `<a href="${esc(condLink(ctx, u, c.id))}">${esc(c.topic)}</a>`;
      return (
        `<li>${esc(c.date)} — ${c.supersededBy ? `<del>${title}</del> <span class="muted">superseded by ${esc(c.supersededBy)}</span>` : title}${said(c)}` +
        `${post ? ` · <a href="${esc(post)}" rel="noopener noreferrer">Discord message</a>` : ''}` +
        `${c.malformed ? ' <span class="muted">malformed front matter (not read)</span>' : ''}</li>`
      );
    })
    .join('');
  const chains = o.conds
    .filter((c) => c.supersedes.length && !c.supersededBy)
    .map((c) => chainOf(o.conds, c.id))
    .map(
      (ch) =>
        `<ol class="chain">${ch.map((c) => `<li>${c.supersededBy ? '<del>' : ''}<a href="${esc(condLink(ctx, u, c.id))}">${esc(c.date)} ${esc(c.topic)}</a>${c.supersededBy ? '</del> → replaced by' : ' (current)'}</li>`).join('')}</ol>`,
    )
    .join('');
  const f = o.filter.toLowerCase();
  const mem = o.memory
    .filter((m) => !f || m.raw.toLowerCase().includes(f))
    .slice(0, 2000)
    .map((m) => {
      const text = esc(m.text);
      return `<tr><td class="muted nowrap">${esc(m.id ?? '')}</td><td>${m.superseded ? `<del>${text}</del> → ${esc(m.supersededBy ?? '')}` : text}</td><td class="muted">${esc(m.source ?? '')}</td><td class="muted nowrap">${esc(m.date ?? '')}</td></tr>`;
    })
    .join('');
  return (
    `<section><h2>Timeline</h2>${timelineSvg(o.conds, (id) => condLink(ctx, u, id))}</section>` +
    `<section><h2>Search this channel</h2><form action="${esc(ctx.href(`/search`))}" method="get"><input type="hidden" name="in" value="${esc(u.key)}"><input name="q" aria-label="search this channel"> <button>Search</button></form></section>` +
    `<section id="context"><h2>CONTEXT.md</h2>${o.context ? `<div class="md">${ctx.md(o.context, { links })}</div>` : '<p class="muted">none</p>'}</section>` +
    (o.archive ? `<section id="context-archive"><h2>CONTEXT.archive.md</h2><div class="md">${ctx.md(o.archive, { links })}</div></section>` : '') +
    knowledgeSections(ctx, u, o.conds, o.questions ?? [], o.playbooks ?? []) +
    `<section><h2>Condensations (${o.conds.length})</h2><ul>${list}</ul></section>` +
    `<section><h2>Supersession chains</h2>${chains || '<p class="muted">none</p>'}</section>` +
    `<section><h2>MEMORY.md (${o.memory.length} entries)</h2><form method="get"><input name="filter" value="${esc(o.filter)}" aria-label="filter memory"> <button>Filter</button></form>` +
    `<table><thead><tr><th>id</th><th>entry</th><th>from</th><th>date</th></tr></thead><tbody>${mem}</tbody></table></section>` +
    `<section><h2>HISTORY.md</h2>${o.history ? `<div class="md">${ctx.md(o.history.slice(-20000), { links })}</div>` : '<p class="muted">none</p>'}</section>`
  );
}

/** Open questions and playbooks, from context.json; each playbook with its earlier versions struck through. */
function knowledgeSections(ctx: ViewCtx, u: Unit, conds: Condensation[], questions: OpenQuestion[], playbooks: Playbook[]): string {
  const from = (file: string | undefined) => {
    const c = file ? conds.find((x) => x.file === file) : undefined;
    return c ? `<a href="${esc(condLink(ctx, u, c.id))}">${esc(c.date)} ${esc(c.topic)}</a>` : esc(file ?? '');
  };
  const qs = questions
    .map(
      (q) =>
        `<tr><td class="muted nowrap">${esc(q.id)}</td><td>${esc(q.text)}</td><td>${esc(q.askedBy ?? '')}</td><td class="muted nowrap">${esc(q.opened)}</td><td>${from(q.file)}</td></tr>`,
    )
    .join('');
  const pbs = playbooks
    .map((p) => {
      const cur = p.versions[p.versions.length - 1];
      const steps = (v: Playbook['versions'][number], del: boolean) =>
        `<ol>${v.steps.map((s) => `<li>${del ? `<del>${esc(s)}</del>` : esc(s)}</li>`).join('')}</ol>`;
      const earlier = p.versions
        .slice(0, -1)
        .reverse()
        .map((v) => `<p class="muted">${esc(v.date)}, from ${from(v.file)}:</p>${steps(v, true)}`)
        .join('');
      return (
        `<div id="playbook-${esc(p.slug)}"><h3>${esc(p.name)}</h3><p class="muted">in force since ${esc(cur.date)}, from ${from(cur.file)}</p>${steps(cur, false)}` +
        `${earlier ? `<details><summary>${p.versions.length - 1} earlier version(s)</summary>${earlier}</details>` : ''}</div>`
      );
    })
    .join('');
  return (
    `<section id="questions"><h2>Open questions (${questions.length})</h2>${qs ? `<table><thead><tr><th>id</th><th>question</th><th>asked by</th><th>since</th><th>from</th></tr></thead><tbody>${qs}</tbody></table>` : '<p class="muted">none</p>'}</section>` +
    `<section id="playbooks"><h2>Playbooks (${playbooks.length})</h2>${pbs || '<p class="muted">none</p>'}</section>`
  );
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
            `<tr><td class="score">${i.score.toFixed(3)}</td><td class="score">${i.lexical.toFixed(3)}</td><td class="score">${i.semantic === undefined ? '—' : i.semantic.toFixed(3)}</td>` +
            `<td>${h.injected.has(i.text) ? 'yes' : ''}</td><td class="nowrap">${esc(path.basename(i.file))}</td><td>${esc(ctx.md.text(i.text))}</td></tr>`,
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
        `<h3>Memory lines (words and meaning, best first)</h3>${items ? `${injection}<table><thead><tr><th>score</th><th>lexical</th><th>semantic</th><th>injected</th><th>file</th><th>text</th></tr></thead><tbody>${items}</tbody></table>` : '<p class="muted">no memory line shares a word or a meaning with the text</p>'}` +
        `<h3>Condensations containing the words</h3><ul>${text || '<li class="muted">none</li>'}</ul></section>`
      );
    })
    .join('');
  return `${form}<p class="muted">recall meaning: ${esc(semantic)}</p>${parts || '<p>No results.</p>'}`;
}
