import type { ActionItem } from '../condense/knowledge/actionItems';
import type { MemoryLine } from '../memory/entries';
import type { Condensation, Unit } from './data';
import type { ChannelDigest, DecisionRow, PlaybookRow } from './digest';
import { isOverdue } from './digest';
import { esc, safeHref } from './html';
import { MarkStatus, STATUS_LABEL, TimelineMark, timelineSvg } from './timeline';
import { channelLinks, condLink, statusBadge, type ViewCtx } from './views';

/**
 * The channel page: each thing once, in the order a team reads it — the state, the decisions in
 * force with their status, the timeline of every condensation, action items by owner, open
 * questions, playbooks, then memory. CONTEXT.md and HISTORY.md as files are one link away (their
 * own pages), not rendered here again. "As of" a day shows the channel as it stood then.
 */

export interface ChannelPage {
  serverLabel: string;
  conds: Condensation[];
  digest: ChannelDigest;
  memory: MemoryLine[];
  /** The MEMORY.md filter as typed. */
  filter: string;
  /** The "as of" field as typed, and what is wrong with it when it is not a day. */
  at: { text: string; problem?: string };
  hasContext: boolean;
  hasHistory: boolean;
  /** The recall health section (today's), already rendered; omitted as of a past day. */
  health: string;
}

/** MEMORY.md lines shown at most (the filter finds the rest): keeps a page of a big channel small. */
export const MEMORY_SHOWN = 200;

export function channelBody(ctx: ViewCtx, u: Unit, p: ChannelPage): string {
  const d = p.digest;
  const base = ctx.href(`/channel/${u.key}`);
  const byFile = new Map(p.conds.map((c) => [c.file, c]));
  const condOf = (file: string | undefined) => (file ? byFile.get(file) : undefined);
  const from = (file: string | undefined) => {
    const c = condOf(file);
    return c ? `<a href="${esc(condLink(ctx, u, c.id))}">${esc(c.topic)}</a> <span class="meta">${esc(c.date)}</span>` : file ? esc(file) : '';
  };
  const files = [
    p.hasContext ? `<a href="${esc(`${base}/context`)}">CONTEXT.md</a>` : '',
    p.hasHistory ? `<a href="${esc(`${base}/history`)}">HISTORY.md</a>` : '',
  ].filter(Boolean);
  const top =
    `<p class="meta">${esc(p.serverLabel)} · ${p.conds.length} condensation${p.conds.length === 1 ? '' : 's'}${files.length ? ` · files: ${files.join(' · ')}` : ''}</p>` +
    `<form class="asof" method="get" action="${esc(base)}"><label for="at">As of</label><input id="at" name="at" type="date" value="${esc(d.day ?? (p.at.problem ? p.at.text : ''))}">` +
    `<button>Show</button>${d.day || p.at.problem ? ` <a href="${esc(base)}">today</a>` : ''}</form>` +
    (p.at.problem ? `<p class="note flag" role="alert">${esc(p.at.problem)}; showing today.</p>` : '') +
    (d.day
      ? `<p class="note">As the channel stood at the end of ${esc(d.day)} (UTC): the decisions in force then, as <code>/decisions at:${esc(d.day)}</code> answers, and what was open then. Memory and recall health are today's: <a href="${esc(base)}">see today</a>.</p>`
      : '') +
    `<form class="filter" role="search" method="get" action="${esc(ctx.href('/search'))}"><input type="hidden" name="in" value="${esc(u.key)}"><input name="q" aria-label="search this channel" placeholder="search this channel"> <button>Search</button></form>`;

  const state =
    `<section id="state" aria-labelledby="h-state"><h2 id="h-state">State</h2>` +
    (d.state
      ? `<p>${esc(d.state.text)} <span class="meta">(${esc(d.state.date.slice(0, 10))})</span></p>`
      : '<p class="muted">No current state recorded.</p>') +
    (d.constraints.length
      ? `<h3>Active constraints</h3><ul>${d.constraints.map((k) => `<li>${esc(k.text)} <span class="meta">since ${esc(k.date.slice(0, 10))}</span></li>`).join('')}</ul>`
      : '') +
    `</section>`;

  const decisionItem = (r: DecisionRow) => {
    const c = condOf(r.decision.file);
    const post = safeHref(c?.postUrl);
    return (
      `<li><strong>${c ? `<a href="${esc(condLink(ctx, u, c.id))}">${esc(r.decision.topic)}</a>` : esc(r.decision.topic)}</strong>: ${esc(r.decision.text)}` +
      `<br>${statusBadge(r.status)} <span class="meta">decided ${esc(r.decision.date.slice(0, 10))} · ${esc(r.decision.id)}</span>` +
      `${post ? ` · <a href="${esc(post)}" rel="noopener noreferrer">pinned post</a>` : ''}</li>`
    );
  };
  const decisions =
    `<section id="decisions" aria-labelledby="h-decisions"><h2 id="h-decisions">Decisions in force (${d.inForce.length})</h2>` +
    (d.inForce.length ? `<ul class="plain list">${d.inForce.map(decisionItem).join('')}</ul>` : '<p class="muted">None.</p>') +
    `</section>`;

  const marks = timelineMarks(ctx, u, p.conds, d);
  const condById = new Map(p.conds.map((c) => [c.id, c]));
  const markById = new Map(marks.map((m) => [m.id, m]));
  const list = [...marks]
    .reverse()
    .map((m) => {
      const c = condById.get(m.id)!;
      const title = `<a href="${esc(m.href)}">${esc(m.topic)}</a>`;
      const by = m.replacedBy ? markById.get(m.replacedBy) : undefined;
      return (
        `<li><span class="meta">${esc(m.date.slice(0, 10))}</span> ${m.status === 'superseded' ? `<del>${title}</del>` : title} <span class="badge s-${m.status}">${esc(STATUS_LABEL[m.status])}</span>` +
        `${by ? ` <span class="meta">replaced by <a href="${esc(by.href)}">${esc(by.topic)}</a> (${esc(by.date.slice(0, 10))})</span>` : ''}` +
        `${c.malformed ? ' <span class="flag">malformed front matter (not read)</span>' : ''}</li>`
      );
    })
    .join('');
  const timeline =
    `<section id="timeline" aria-labelledby="h-timeline"><h2 id="h-timeline">Timeline</h2>` +
    timelineSvg(marks, `Decision timeline: ${marks.length} condensation${marks.length === 1 ? '' : 's'}, each a link`) +
    (list ? `<ol class="plain list">${list}</ol>` : '') +
    `</section>`;

  const item = (a: ActionItem) =>
    `<li${isOverdue(a, d.today) ? ' class="overdue"' : ''}>${esc(a.text)}` +
    `${a.due ? ` <span class="${isOverdue(a, d.today) ? 'badge overdue' : 'meta'}">${isOverdue(a, d.today) ? 'overdue: ' : ''}due ${esc(a.due)}</span>` : ''}` +
    ` <span class="meta">${esc(a.id)} · from</span> ${from(a.file)}</li>`;
  const actions =
    `<section id="actions" aria-labelledby="h-actions"><h2 id="h-actions">Action items (${d.actions.length} open${d.overdue.length ? `, ${d.overdue.length} overdue` : ''})</h2>` +
    (d.byOwner.length
      ? d.byOwner.map((g) => `<h3>${g.owner ? esc(g.owner) : 'Nobody named'} (${g.items.length})</h3><ul>${g.items.map(item).join('')}</ul>`).join('')
      : '<p class="muted">None open.</p>') +
    `</section>`;

  const questions =
    `<section id="questions" aria-labelledby="h-questions"><h2 id="h-questions">Open questions (${d.questions.length})</h2>` +
    (d.questions.length
      ? `<ul>${d.questions
          .map(
            (q) =>
              `<li>${esc(q.text)} <span class="meta">${q.askedBy ? `asked by ${esc(q.askedBy)} · ` : ''}since ${esc(q.opened.slice(0, 10))} · ${esc(q.id)} · from</span> ${from(q.file)}</li>`,
          )
          .join('')}</ul>`
      : '<p class="muted">None open.</p>') +
    `</section>`;

  const playbook = (r: PlaybookRow) => {
    const steps = (v: PlaybookRow['current'], del: boolean) => `<ol>${v.steps.map((s) => `<li>${del ? `<del>${esc(s)}</del>` : esc(s)}</li>`).join('')}</ol>`;
    const earlier = r.earlier.map((v) => `<p class="meta">${esc(v.date)}, from ${from(v.file)}:</p>${steps(v, true)}`).join('');
    return (
      `<div id="playbook-${esc(r.playbook.slug)}"><h3>${esc(r.playbook.name)}</h3><p class="meta">in force since ${esc(r.current.date)}, from ${from(r.current.file)}</p>${steps(r.current, false)}` +
      `${earlier ? `<details><summary>${r.earlier.length} earlier version${r.earlier.length === 1 ? '' : 's'}</summary>${earlier}</details>` : ''}</div>`
    );
  };
  const playbooks =
    `<section id="playbooks" aria-labelledby="h-playbooks"><h2 id="h-playbooks">Playbooks (${d.playbooks.length})</h2>` +
    (d.playbooks.length ? d.playbooks.map(playbook).join('') : '<p class="muted">None.</p>') +
    `</section>`;

  const f = p.filter.toLowerCase();
  const matching = p.memory.filter((m) => !f || m.raw.toLowerCase().includes(f));
  const mem = matching
    .slice(0, MEMORY_SHOWN)
    .map((m) => {
      const text = m.superseded ? `<del>${esc(m.text)}</del> → ${esc(m.supersededBy ?? '')}` : esc(m.text);
      const meta = [m.id, m.source, m.date].filter(Boolean).map(esc).join(' · ');
      return `<li>${text}${meta ? `<br><span class="meta">${meta}</span>` : ''}</li>`;
    })
    .join('');
  const more = matching.length > MEMORY_SHOWN ? `<p class="meta">${MEMORY_SHOWN} of ${matching.length} shown: filter to find the rest.</p>` : '';
  const memory = d.day
    ? ''
    : `<section id="memory" aria-labelledby="h-memory"><h2 id="h-memory">Memory (${p.memory.length} entr${p.memory.length === 1 ? 'y' : 'ies'} in MEMORY.md)</h2>` +
      `<form class="filter" method="get" action="${esc(base)}#memory"><input name="filter" value="${esc(p.filter)}" aria-label="filter memory" placeholder="filter memory"> <button>Filter</button></form>` +
      `${mem ? `<ul class="plain list">${mem}</ul>` : '<p class="muted">No entry.</p>'}${more}</section>`;

  return top + state + decisions + timeline + actions + questions + playbooks + memory + (d.day ? '' : p.health);
}

/**
 * One mark per condensation made by the digest's day, its status from the decision it recorded
 * (as of that day), and the arrow to what replaced it when that was by then too.
 */
export function timelineMarks(ctx: ViewCtx, u: Unit, conds: Condensation[], d: ChannelDigest): TimelineMark[] {
  const day = d.day ?? '9999-12-31';
  const shown = conds.filter((c) => c.date.slice(0, 10) <= day);
  const ids = new Set(shown.map((c) => c.id));
  const status = new Map<string, MarkStatus>();
  for (const r of d.inForce) if (r.decision.file) status.set(r.decision.file, r.status.status);
  for (const r of d.replaced) if (r.decision.file) status.set(r.decision.file, 'superseded');
  for (const f of d.noDecision) status.set(f, 'none');
  return shown.map((c) => {
    const replacedBy = c.supersededBy && ids.has(c.supersededBy) ? c.supersededBy : undefined;
    // A condensation context.json does not list (one from before it, or a hand-made file):
    // superseded when a shown one replaced it, else proposed (nobody confirmed it).
    const s = status.get(c.file) ?? (replacedBy ? 'superseded' : 'proposed');
    return { id: c.id, date: c.date, topic: c.topic, status: s, ...(replacedBy ? { replacedBy } : {}), href: condLink(ctx, u, c.id) };
  });
}

/** CONTEXT.md (and its archive) on a page of its own: the file as the bot wrote it, rendered. */
export function contextBody(ctx: ViewCtx, u: Unit, conds: Condensation[], context: string | null, archive: string | null): string {
  const links = channelLinks(ctx, u, conds);
  return (
    `<p><a href="${esc(ctx.href(`/channel/${u.key}`))}">← back to the channel</a></p>` +
    `<section id="context">${context ? `<div class="md">${ctx.md(context, { links })}</div>` : '<p class="muted">No CONTEXT.md yet.</p>'}</section>` +
    (archive
      ? `<section id="context-archive" aria-labelledby="h-archive"><h2 id="h-archive">CONTEXT.archive.md</h2><div class="md">${ctx.md(archive, { links })}</div></section>`
      : '')
  );
}

/** HISTORY.md's last part on a page of its own. */
export const HISTORY_SHOWN = 40_000;

export function historyBody(ctx: ViewCtx, u: Unit, conds: Condensation[], history: string | null): string {
  const links = channelLinks(ctx, u, conds);
  const cut = history !== null && history.length > HISTORY_SHOWN;
  return (
    `<p><a href="${esc(ctx.href(`/channel/${u.key}`))}">← back to the channel</a></p>` +
    (cut ? `<p class="meta">The file's last ${HISTORY_SHOWN / 1000} KB; the whole file is on disk.</p>` : '') +
    (history ? `<div class="md">${ctx.md(cut ? history.slice(-HISTORY_SHOWN) : history, { links })}</div>` : '<p class="muted">No HISTORY.md yet.</p>')
  );
}
