import type { DecisionStatus } from '../condense/knowledge/contextData';
import { esc } from './html';

/**
 * A channel's decisions over time, drawn on the server as SVG (no client script): one mark per
 * condensation in date order, its status by shape and colour (and said in words: each mark is a
 * link named with its date, topic and status, and the legend names every shape), and an arrow from
 * each replaced decision to the one that replaced it.
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

const W = 640;
const PAD = 24;
/** Marks per row: at most this many, 26 units apart, so neighbours never cover each other (and a phone still shows them at half size). */
const PER_ROW = 24;
const ROW = 78;
/** Up to this many marks, each gets its date under it; beyond, each row's first and last do. */
const DATED = 8;
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

/**
 * Marks in order, evenly spaced (an even step keeps every mark apart however the dates bunch up),
 * in rows of PER_ROW; the dates are written under the marks.
 */
export function timelineSvg(marks: TimelineMark[], caption: string): string {
  if (marks.length === 0) return '<p class="muted">No condensations yet.</p>';
  const rows = Math.ceil(marks.length / PER_ROW);
  const perRow = Math.ceil(marks.length / rows);
  const step = perRow > 1 ? (W - 2 * PAD) / (perRow - 1) : 0;
  const H = rows * ROW + 8;
  const x = (i: number) => (perRow > 1 ? PAD + (i % perRow) * step : W / 2);
  const y = (i: number) => Math.floor(i / perRow) * ROW + 44;
  const idx = new Map(marks.map((m, i) => [m.id, i]));
  const arrows: string[] = [];
  marks.forEach((m, i) => {
    const j = m.replacedBy ? idx.get(m.replacedBy) : undefined;
    if (j === undefined) return;
    const [x1, y1, x2, y2] = [x(i), y(i), x(j), y(j)];
    const lift = Math.min(30, 12 + Math.abs(x2 - x1) / 10);
    // Ends short of the marks so the arrowhead is seen, not hidden under the next mark.
    const dir = x2 >= x1 ? 1 : -1;
    arrows.push(
      `<path class="tl-arrow" d="M${(x1 + 5 * dir).toFixed(1)},${(y1 - 6).toFixed(1)} Q${((x1 + x2) / 2).toFixed(1)},${(Math.min(y1, y2) - lift).toFixed(1)} ${(x2 - 6 * dir).toFixed(1)},${(y2 - 8).toFixed(1)}" marker-end="url(#tl-head)"/>`,
    );
  });
  const dots = marks.map((m, i) => {
    const name = `${m.date.slice(0, 10)} ${m.topic}: ${STATUS_LABEL[m.status]}${m.replacedBy ? `, replaced by ${marks[idx.get(m.replacedBy)!]!.topic}` : ''}`;
    return `<a href="${esc(m.href)}" aria-label="${esc(name)}"><title>${esc(name)}</title>${shape(m.status, x(i), y(i))}</a>`;
  });
  const axes: string[] = [];
  const dates: string[] = [];
  for (let r = 0; r < rows; r++) {
    const first = r * perRow;
    const last = Math.min(marks.length, first + perRow) - 1;
    axes.push(`<line class="tl-axis" x1="${PAD}" y1="${y(first)}" x2="${W - PAD}" y2="${y(first)}"/>`);
    const label = (i: number, anchor: string) =>
      `<text class="tl-date" x="${x(i).toFixed(1)}" y="${y(i) + 24}" text-anchor="${anchor}">${esc(marks[i]!.date.slice(0, 10))}</text>`;
    if (marks.length <= DATED)
      for (let i = first; i <= last; i++) dates.push(label(i, marks.length === 1 ? 'middle' : i === 0 ? 'start' : i === last ? 'end' : 'middle'));
    else dates.push(label(first, 'start'), ...(last > first ? [label(last, 'end')] : []));
  }
  return (
    `<figure class="timeline"><svg role="group" aria-label="${esc(caption)}" viewBox="0 0 ${W} ${H}" preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg">` +
    `<defs><marker id="tl-head" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path class="tl-head" d="M0,0 L10,5 L0,10 Z"/></marker></defs>` +
    `<g aria-hidden="true">${axes.join('')}${dates.join('')}</g>${arrows.join('')}${dots.join('')}` +
    `</svg><figcaption>${timelineLegend()}</figcaption></figure>`
  );
}
