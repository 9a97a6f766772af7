import crypto from 'node:crypto';
import { normalizeForCompare } from './entries';

/**
 * A forgotten fact leaves a tombstone: a hash of its normalized text and hashes of its word
 * 3-grams, never the text itself, so automatic extraction cannot learn it again, even reworded.
 */
export interface Tombstone {
  id?: string;
  at: string;
  hash: string;
  grams: string[];
  reason?: string;
}

/** Share of the smaller 3-gram set found in the other: at or above this a reworded copy is the same fact. */
export const TOMBSTONE_OVERLAP = 0.6;

const STOP = new Set([
  'a',
  'an',
  'the',
  'is',
  'are',
  'was',
  'were',
  'be',
  'to',
  'of',
  'and',
  'or',
  'in',
  'on',
  'for',
  'we',
  'our',
  'it',
  'that',
  'this',
  'with',
  'as',
  'at',
  'by',
  'from',
  'all',
  'will',
  'should',
  'must',
]);

function h(s: string): string {
  return crypto.createHash('sha256').update(s).digest('hex').slice(0, 16);
}

function words(text: string): string[] {
  return normalizeForCompare(text)
    .split(' ')
    .filter((w) => w && !STOP.has(w))
    .map((w) => (w.length > 4 && w.endsWith('s') ? w.slice(0, -1) : w));
}

export function gramHashes(text: string): string[] {
  const w = words(text);
  if (w.length < 3) return w.length ? [h(w.join(' '))] : [];
  const out = new Set<string>();
  for (let i = 0; i + 3 <= w.length; i++) out.add(h(w.slice(i, i + 3).join(' ')));
  return [...out];
}

export function makeTombstone(text: string, at: Date, id?: string, reason?: string): Tombstone {
  return { id, at: at.toISOString(), hash: h(words(text).join(' ')), grams: gramHashes(text), reason };
}

/**
 * The lines of tombstones.jsonl that are tombstones. The file is appended to, and a person or a
 * damaged disk may leave anything in it: a line of another shape is skipped (it can block nothing),
 * never allowed to stop every memory write of the channel.
 */
export function tombstonesOf(values: unknown[]): Tombstone[] {
  return values.filter(
    (v): v is Tombstone =>
      !!v &&
      typeof v === 'object' &&
      typeof (v as Tombstone).hash === 'string' &&
      Array.isArray((v as Tombstone).grams) &&
      (v as Tombstone).grams.every((g) => typeof g === 'string'),
  );
}

export function matchesTombstone(text: string, stones: Tombstone[]): Tombstone | undefined {
  const hash = h(words(text).join(' '));
  const grams = new Set(gramHashes(text));
  for (const t of stones) {
    if (t.hash === hash) return t;
    if (!grams.size || !t.grams.length) continue;
    let shared = 0;
    for (const g of t.grams) if (grams.has(g)) shared++;
    if (shared / Math.min(grams.size, t.grams.length) >= TOMBSTONE_OVERLAP) return t;
  }
  return undefined;
}
