import type { Condensation } from './data';
import { esc } from './html';

/**
 * A per-channel picture of decisions over time, rendered on the server as SVG (no client script):
 * one dot per condensation by date, hollow when superseded, an arc from each to what replaced it.
 */
export function timelineSvg(conds: Condensation[], link: (id: string) => string): string {
  if (conds.length === 0) return '<p class="muted">No decisions yet.</p>';
  const t = conds.map((c) => Date.parse(c.date) || 0);
  const min = Math.min(...t);
  const max = Math.max(...t);
  const W = 900;
  const H = 90;
  const pad = 20;
  const x = (i: number): number => (max === min ? W / 2 : pad + ((t[i]! - min) / (max - min)) * (W - 2 * pad));
  const idx = new Map(conds.map((c, i) => [c.id, i]));
  const arcs: string[] = [];
  const dots: string[] = [];
  conds.forEach((c, i) => {
    const j = c.supersededBy ? idx.get(c.supersededBy) : undefined;
    if (j !== undefined) {
      const x1 = x(i);
      const x2 = x(j);
      arcs.push(`<path d="M${x1.toFixed(1)},50 Q${((x1 + x2) / 2).toFixed(1)},10 ${x2.toFixed(1)},50" fill="none" stroke="#c0392b" stroke-width="1"/>`);
    }
    dots.push(
      `<a href="${esc(link(c.id))}"><circle cx="${x(i).toFixed(1)}" cy="50" r="5" fill="${c.supersededBy ? '#fff' : '#2c3e50'}" stroke="#2c3e50"><title>${esc(c.date)} ${esc(c.topic)}</title></circle></a>`,
    );
  });
  return (
    `<svg role="img" aria-label="decision timeline" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg">` +
    `<line x1="${pad}" y1="50" x2="${W - pad}" y2="50" stroke="#aaa"/>${arcs.join('')}${dots.join('')}` +
    `<text x="${pad}" y="80" font-size="11">${esc(conds[0]!.date)}</text><text x="${W - pad}" y="80" font-size="11" text-anchor="end">${esc(conds[conds.length - 1]!.date)}</text></svg>`
  );
}
