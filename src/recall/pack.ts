import type { Index, RecallItem, RecallResult, Scored } from './types';
import type { Candidate } from './sources';

/**
 * Turning ranked candidates into the recall block: de-duplication across files, greedy packing
 * within the character budget and item cap, grouping under provenance headers.
 */
export function termSet(index: Index, id: number): Set<string> {
  let s = index.sets[id];
  if (!s) index.sets[id] = s = new Set(index.cands[id].terms);
  return s;
}

/**
 * Two candidates from different files "say the same thing" when their term sets overlap almost
 * entirely (Jaccard ≥ 0.6, or the smaller one, of 3+ words, ≥ 0.85 contained in the larger). From the
 * first recall (b2c66b2) and never tuned under leave-one-out (no interval): it only picks which copy
 * of one fact in two files is shown. A related rule, deferring near-duplicates at Jaccard ≥ `nearDup`
 * 0.4–0.7, held out +0.000 at every budget and was removed (docs/benchmarks.md).
 */
function sameThing(a: Set<string>, b: Set<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (small.size === 0) return false;
  let inter = 0;
  for (const t of small) if (large.has(t)) inter++;
  const jaccard = inter / (a.size + b.size - inter);
  if (jaccard >= 0.6) return true;
  return small.size >= 3 && inter / small.size >= 0.85;
}

/**
 * An entry with its own provenance tag (`[from: source, date]`) is self-describing: it sits under a
 * `[file]` line. Entries without one (paragraphs, hand-written lines) sit under `[file › heading]`,
 * the heading being their provenance. (The heading of every item is in `items` either way.)
 */
function groupOf(c: Candidate): { key: string; header: string } {
  if (c.group) return c.group;
  const heading = c.tagged ? '' : c.heading;
  c.group = { key: `${c.file}\u0000${heading}`, header: heading ? `[${c.file} › ${heading}]` : `[${c.file}]` };
  return c.group;
}

/** Characters of the rendered text for these items (headers, lines, newlines). */
function renderedLength(cands: Candidate[], list: Scored[]): number {
  const seen = new Set<string>();
  let len = 0;
  for (const s of list) {
    const c = cands[s.id];
    const { key, header } = groupOf(c);
    if (!seen.has(key)) {
      seen.add(key);
      len += header.length + 1;
    }
    len += c.text.length + 1;
  }
  return len > 0 ? len - 1 : 0;
}

/**
 * Greedy packing in score order, with de-duplication: an item that would overflow the budget is
 * skipped and smaller ones are still tried, until the item cap. An item that says the same thing as
 * one already taken from another file (or has the same text) is dropped — unless its file is higher
 * in precedence (SESSION > MEMORY > condensations > workspace > HISTORY), in which case it takes the
 * other's place at the other's score. The text groups items under one header line per group (see
 * groupOf), files in precedence order and entries in document order, so the model reads them where
 * they came from and tag-free paragraphs still carry their provenance. `out`, when given (an
 * explanation asked for), receives the packed candidates in the items' order.
 */
export function pack(index: Index, ranked: Scored[], budget: number, maxItems: number, out?: Scored[]): RecallResult {
  const cands = index.cands;
  const taken: Scored[] = [];
  const byText = new Map<string, number>();
  const groupCount = new Map<string, number>();
  let used = 0;
  for (const s of ranked) {
    if (taken.length >= maxItems) break;
    const c = cands[s.id];
    let dup = byText.get(c.norm) ?? -1;
    if (dup < 0) {
      const a = termSet(index, s.id);
      for (let i = 0; i < taken.length; i++) {
        if (cands[taken[i].id].file !== c.file && sameThing(a, termSet(index, taken[i].id))) {
          dup = i;
          break;
        }
      }
    }
    if (dup >= 0) {
      const other = taken[dup];
      if (c.rank >= cands[other.id].rank) continue;
      const trial = taken.slice();
      trial[dup] = { ...s, score: other.score };
      const len = renderedLength(cands, trial);
      if (len > budget) continue;
      byText.delete(cands[other.id].norm);
      const oldKey = groupOf(cands[other.id]).key;
      groupCount.set(oldKey, (groupCount.get(oldKey) ?? 1) - 1);
      const newKey = groupOf(c).key;
      groupCount.set(newKey, (groupCount.get(newKey) ?? 0) + 1);
      taken[dup] = trial[dup];
      byText.set(c.norm, dup);
      used = len;
      continue;
    }
    // Incremental cost: a new group adds its header line; every line adds itself and a newline.
    const key = groupOf(c).key;
    const gCount = groupCount.get(key) ?? 0;
    const cost = (taken.length > 0 ? 1 : 0) + (gCount === 0 ? groupOf(c).header.length + 1 : 0) + c.text.length;
    if (used + cost > budget) continue;
    byText.set(c.norm, taken.length);
    groupCount.set(key, gCount + 1);
    taken.push(s);
    used += cost;
  }
  if (taken.length === 0 || used === 0) return { text: '', items: [] };
  const groups = new Map<string, { header: string; rank: number; file: string; first: number; members: Scored[] }>();
  for (const s of taken) {
    const c = cands[s.id];
    const { key, header } = groupOf(c);
    const g = groups.get(key);
    if (g) {
      g.members.push(s);
      g.first = Math.min(g.first, c.line);
    } else {
      groups.set(key, { header, rank: c.rank, file: c.file, first: c.line, members: [s] });
    }
  }
  const ordered = Array.from(groups.values()).sort((a, b) => a.rank - b.rank || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.first - b.first);
  const parts: string[] = [];
  const items: RecallItem[] = [];
  for (const g of ordered) {
    g.members.sort((a, b) => cands[a.id].line - cands[b.id].line);
    parts.push(g.header);
    for (const m of g.members) {
      const c = cands[m.id];
      parts.push(c.text);
      out?.push(m);
      items.push({
        file: c.file,
        heading: c.heading,
        text: c.text,
        score: round3(m.score),
        lexical: round3(m.lexical),
        ...(m.semantic !== undefined ? { semantic: round3(m.semantic) } : {}),
        ...(c.link ? { link: c.link } : {}),
      });
    }
  }
  return { text: parts.join('\n'), items };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
