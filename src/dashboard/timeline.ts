import type { DecisionStatus } from '../condense/knowledge/contextData';
import { esc } from './html';

/**
 * A channel's decisions over time, drawn on the server as SVG (no client script): one mark per
 * condensation by date, its status by shape and colour (and said in words: each mark is a link
 * named with its date, topic and status, and the legend names every shape), and an arrow from each
 * replaced decision to the one that replaced it. Marks on nearby dates stack instead of hiding
 * each other.
 */

/** 'none': a discussion that reached no decision. */
export type MarkStatus = DecisionStatus | 'none';

export interface TimelineMark {
  id: string;
  date: string;
  topic: string;
  status: MarkStatus;
  /** The mark that replaced this one, when it is on the timeline. */
  replacedBy?: string;
  href: string;
}

export const STATUS_LABEL: Record<MarkStatus, string> = {
  ratified: 'ratified',
  proposed: 'proposed',
  disputed: 'disputed',
  superseded: 'superseded',
  none: 'no decision',
};

const W = 900;
const AXIS = 70;
const LANE = 16;
/** Marks closer than this (in the drawing's units) go to the next lane up. */
const CROWDED = 14;

/** One shape per status, centred on (x, y): the shape carries the status for anyone who cannot tell the colours apart. */
function shape(status: MarkStatus, x: number, y: number): string {
  const c = `class="tl-${status}"`;
  const p = (n: number) => n.toFixed(1);
  switch (status) {
    case 'ratified':
      return `<circle ${c} cx="${p(x)}" cy="${p(y)}" r="6"/>`;
    case 'proposed':
      return `<circle ${c} cx="${p(x)}" cy="${p(y)}" r="5.5"/>`;
    case 'disputed':
      return `<path ${c} d="M${p(x)},${p(y - 7)} L${p(x + 7)},${p(y)} L${p(x)},${p(y + 7)} L${p(x - 7)},${p(y)} Z"/>`;
    case 'superseded':
      return `<rect ${c} x="${p(x - 5)}" y="${p(y - 5)}" width="10" height="10"/>`;
    case 'none':
      return `<path ${c} d="M${p(x)},${p(y - 6)} L${p(x + 6)},${p(y + 5)} L${p(x - 6)},${p(y + 5)} Z"/>`;
  }
}

/** The legend: the same shapes, small, each with its word. */
export function timelineLegend(): string {
  const items = (Object.keys(STATUS_LABEL) as MarkStatus[]).map(
    (s) => `<li><svg aria-hidden="true" focusable="false" width="16" height="16" viewBox="0 0 16 16">${shape(s, 8, 8)}</svg> ${esc(STATUS_LABEL[s])}</li>`,
  );
  return `<ul class="legend">${items.join('')}<li><svg aria-hidden="true" focusable="false" width="22" height="16" viewBox="0 0 22 16"><path class="tl-arrow" d="M1,8 L15,8" marker-end="url(#tl-head)"/></svg> replaced by</li></ul>`;
}

export function timelineSvg(marks: TimelineMark[], caption: string): string {
  if (marks.length === 0) return '<p class="muted">No condensations yet.</p>';
  const t = marks.map((m) => Date.parse(m.date.slice(0, 10)) || 0);
  const min = Math.min(...t);
  const max = Math.max(...t);
  const pad = 24;
  const xs = marks.map((_m, i) => (max === min ? W / 2 : pad + ((t[i]! - min) / (max - min)) * (W - 2 * pad)));
  // Lanes: a mark too close to one already placed in a lane goes up a lane.
  const lanes: number[][] = [];
  const ys = xs.map((x) => {
    let lane = 0;
    while (lanes[lane]?.some((o) => Math.abs(o - x) < CROWDED)) lane++;
    (lanes[lane] ??= []).push(x);
    return AXIS - lane * LANE;
  });
  const top = Math.min(...ys);
  const shift = Math.max(0, 40 - top);
  const H = AXIS + shift + 34;
  const y = (i: number) => ys[i]! + shift;
  const axisY = AXIS + shift;
  const idx = new Map(marks.map((m, i) => [m.id, i]));
  const arrows: string[] = [];
  marks.forEach((m, i) => {
    const j = m.replacedBy ? idx.get(m.replacedBy) : undefined;
    if (j === undefined) return;
    const [x1, y1, x2, y2] = [xs[i]!, y(i), xs[j]!, y(j)];
    const lift = Math.min(38, 14 + Math.abs(x2 - x1) / 8);
    // Ends short of the marks so the arrowhead is seen, not hidden under the next mark.
    const dir = x2 >= x1 ? 1 : -1;
    arrows.push(
      `<path class="tl-arrow" d="M${(x1 + 6 * dir).toFixed(1)},${(y1 - 4).toFixed(1)} Q${((x1 + x2) / 2).toFixed(1)},${(Math.min(y1, y2) - lift).toFixed(1)} ${(x2 - 8 * dir).toFixed(1)},${(y2 - 6).toFixed(1)}" marker-end="url(#tl-head)"/>`,
    );
  });
  const dots = marks.map((m, i) => {
    const name = `${m.date.slice(0, 10)} ${m.topic}: ${STATUS_LABEL[m.status]}${m.replacedBy ? `, replaced by ${marks[idx.get(m.replacedBy)!]!.topic}` : ''}`;
    return `<a href="${esc(m.href)}" aria-label="${esc(name)}"><title>${esc(name)}</title>${shape(m.status, xs[i]!, y(i))}</a>`;
  });
  const first = marks[0]!.date.slice(0, 10);
  const last = marks[marks.length - 1]!.date.slice(0, 10);
  return (
    `<figure class="timeline"><svg role="group" aria-label="${esc(caption)}" viewBox="0 0 ${W} ${H}" preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg">` +
    `<defs><marker id="tl-head" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path class="tl-head" d="M0,0 L10,5 L0,10 Z"/></marker></defs>` +
    `<line class="tl-axis" x1="${pad}" y1="${axisY}" x2="${W - pad}" y2="${axisY}" aria-hidden="true"/>${arrows.join('')}${dots.join('')}` +
    `<text class="tl-date" x="${pad}" y="${axisY + 24}" aria-hidden="true">${esc(first)}</text>` +
    (last !== first ? `<text class="tl-date" x="${W - pad}" y="${axisY + 24}" text-anchor="end" aria-hidden="true">${esc(last)}</text>` : '') +
    `</svg><figcaption>${timelineLegend()}</figcaption></figure>`
  );
}
