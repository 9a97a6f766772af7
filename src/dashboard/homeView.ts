import type { ContextDecision } from '../condense/knowledge/contextData';
import type { StatusView } from '../condense/knowledge/ratify';
import type { ChannelDigest } from './digest';
import { esc } from './html';
import type { WindowFigures } from './recallHealth';
import { healthBar } from './recallHealthView';
import type { Unit } from './data';
import { statusBadge, type ViewCtx } from './views';

/**
 * The home page: one card per channel with what a team lead checks first — its state, its newest
 * decisions with their status, what is open and overdue, how recall is doing, what the audit
 * flags — and a filter by server (a plain GET form: no script).
 */

export interface HomeCard {
  unit: Unit;
  label: string;
  guildLabel: string;
  /** The server's id, or 'console' for local channels: the filter's value. */
  server: string;
  /** null when the channel has no context.json yet (or one that does not parse: the audit says why). */
  digest: ChannelDigest | null;
  condensations: number;
  /** Recall over the longest window; null when the log has no reply yet. */
  recall: WindowFigures | null;
  flags: string[];
}

/** Decisions shown on a card: the newest few, in force or replaced. */
export const CARD_DECISIONS = 3;

/** What the home page was asked: a server to show alone ('' for all), and a day to show the channels as of. */
export interface HomeQuery {
  server: string;
  /** The "as of" field as typed, the day it names, and what is wrong with it when it is not a day. */
  at: { text: string; day?: string; problem?: string };
}

export function homeBody(ctx: ViewCtx, cards: HomeCard[], q: HomeQuery): string {
  if (cards.length === 0) return '<p>No channels in this data folder yet.</p>';
  const servers = [...new Map(cards.map((c) => [c.server, c.guildLabel])).entries()].sort((a, b) => a[1].localeCompare(b[1]));
  const shown = q.server ? cards.filter((c) => c.server === q.server) : cards;
  const day = q.at.day;
  const choose =
    servers.length > 1 || q.server
      ? `<label for="server">Server</label><select id="server" name="server">` +
        `<option value="">all servers (${servers.length})</option>${servers.map(([id, name]) => `<option value="${esc(id)}"${id === q.server ? ' selected' : ''}>${esc(name)}</option>`).join('')}` +
        `</select>`
      : '';
  const filter =
    `<form class="filter" method="get" action="${esc(ctx.href('/'))}">${choose}` +
    `<label for="at">As of</label><input id="at" name="at" type="date" value="${esc(day ?? (q.at.problem ? q.at.text : ''))}"><button>Show</button>` +
    `${day || q.at.problem ? ` <a href="${esc(ctx.href(q.server ? `/?server=${encodeURIComponent(q.server)}` : '/'))}">today</a>` : ''}</form>` +
    (q.at.problem ? `<p class="note flag" role="alert">${esc(q.at.problem)}; showing today.</p>` : '') +
    (day
      ? `<p class="note">As the channels stood at the end of ${esc(day)} (UTC): the decisions in force then with the status they had then, and what was open then. Recall health and the audit are today's.</p>`
      : '');
  const summary = `<p class="muted">${shown.length} channel${shown.length === 1 ? '' : 's'}${q.server ? ` on ${esc(servers.find(([id]) => id === q.server)?.[1] ?? q.server)}` : ''}.</p>`;
  const body = shown.length
    ? `<ul class="cards">${shown.map((c) => card(ctx, c, day)).join('')}</ul>`
    : '<p>No channel of this server in this data folder.</p>';
  return filter + summary + body;
}

function card(ctx: ViewCtx, c: HomeCard, day: string | undefined): string {
  const d = c.digest;
  // As of a day, the channel's page opens as of the same day.
  const link = ctx.href(`/channel/${c.unit.key}${day ? `?at=${day}` : ''}`);
  const state = d?.state ? `<p>${esc(d.state.text)} <span class="meta">(${esc(d.state.date.slice(0, 10))})</span></p>` : '';
  const rows: Array<{ decision: ContextDecision; status: StatusView }> = d
    ? [...d.inForce, ...d.replaced].sort((a, b) => b.decision.date.localeCompare(a.decision.date)).slice(0, CARD_DECISIONS)
    : [];
  const decisions = rows.length
    ? `<h3>Newest decisions</h3><ul>${rows
        .map(
          (r) =>
            `<li>${r.status.status === 'superseded' ? `<del>${esc(r.decision.topic)}</del>` : esc(r.decision.topic)}: ${esc(r.decision.text)}<br>${statusBadge(r.status)} <span class="meta">· decided ${esc(r.decision.date.slice(0, 10))}</span></li>`,
        )
        .join('')}</ul>`
    : `<p class="muted">No decision recorded yet${c.condensations ? ` (${c.condensations} condensation${c.condensations === 1 ? '' : 's'})` : ''}.</p>`;
  const open = d ? d.actions.length : 0;
  const overdue = d ? d.overdue.length : 0;
  const questions = d ? d.questions.length : 0;
  const counts =
    `<p class="counts"><a href="${esc(`${link}#actions`)}">${open} open action item${open === 1 ? '' : 's'}</a>` +
    (overdue ? `<strong class="overdue">${overdue} overdue</strong>` : '') +
    `<a href="${esc(`${link}#questions`)}">${questions} open question${questions === 1 ? '' : 's'}</a>` +
    `<span>${d ? d.inForce.length : 0} in force</span></p>`;
  const overdueList = d?.overdue.length
    ? `<ul>${d.overdue
        .slice(0, 3)
        .map((a) => `<li class="overdue">${a.owner ? `${esc(a.owner)}: ` : ''}${esc(a.text)} <span class="meta">due ${esc(a.due ?? '')}</span></li>`)
        .join('')}</ul>`
    : '';
  const flags = c.flags.length ? `<ul class="flag">${c.flags.map((f) => `<li>${esc(f)}</li>`).join('')}</ul>` : '';
  return (
    `<li class="card"><article aria-labelledby="card-${esc(idOf(c.unit.key))}"><h2 id="card-${esc(idOf(c.unit.key))}"><a href="${esc(link)}">${esc(c.label)}</a></h2>` +
    `<p class="meta">${esc(c.guildLabel)}</p>${state}${decisions}${counts}${overdueList}${healthBar(c.recall)}${flags}</article></li>`
  );
}

/** An element id from a unit key (slashes and all): letters, digits and dashes only. */
function idOf(key: string): string {
  return key.replace(/[^A-Za-z0-9-]/g, '-');
}
