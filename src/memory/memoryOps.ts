import { formatEntry, formatSuperseded, hiddenSpans, MemoryLine, newEntryId, normalizeForCompare, oneLine, parseMemory, utcDate, withId } from './entries';
import { ENTRY_ID } from './grammar';
import { containsSecret } from '../shared/secrets';
import { matchesTombstone, Tombstone } from './tombstones';

/**
 * Operations on MEMORY.md. The model proposes them; this pure function applies them to the file
 * as it is on disk now. Nothing here reorders, rewords or drops a line a person wrote.
 */
export type MemoryOp =
  | { op: 'add'; text: string; source: string; reason?: string; explicit?: boolean; section?: string }
  | { op: 'supersede'; id: string; text: string; source: string; reason?: string; explicit?: boolean }
  /** `text` finds a hand-written line that has no id yet (then `id` is empty). */
  | { op: 'forget'; id: string; text?: string; reason?: string };

export interface AppliedOp {
  op: MemoryOp;
  /** The id written (new entry) or acted on. */
  id: string;
  /** The entry was made by an earlier run of the same message's request: nothing was written now. */
  earlier?: boolean;
}

export interface SkippedOp {
  op: MemoryOp;
  why: string;
}

export interface ApplyOpsResult {
  text: string;
  applied: AppliedOp[];
  skipped: SkippedOp[];
  /** Texts removed by forget ops: the caller records tombstones for them. */
  forgotten: { id: string; text: string }[];
  /** Hand-written lines that received an id in this write. */
  idsAssigned: number;
}

export interface ApplyOpsOptions {
  now: Date;
  tombstones: Tombstone[];
  random?: () => string;
}

const DEFAULT_SECTION = 'Durable Facts';

export function applyMemoryOps(original: string, ops: MemoryOp[], opts: ApplyOpsOptions): ApplyOpsResult {
  const date = utcDate(opts.now);
  const lines = parseMemory(original);
  const out: string[] = lines.map((l) => l.raw);
  const taken = new Set(lines.filter((l) => l.id).map((l) => l.id as string));
  const result: ApplyOpsResult = { text: original, applied: [], skipped: [], forgotten: [], idsAssigned: 0 };
  // Trailing empty string from a final newline is not a line of its own.
  if (out.length && out[out.length - 1] === '') out.pop();

  // Hand-written entries get an id on the next write; their words stay as written.
  for (const l of lines) {
    if (l.kind === 'entry' && !l.id && !l.superseded && l.index < out.length) {
      out[l.index] = withId(l, newEntryId(taken, opts.random));
      result.idsAssigned++;
    }
  }

  const current = (): MemoryLine[] => parseMemory(out.join('\n'));
  const findById = (id: string): MemoryLine | undefined => current().find((l) => l.kind === 'entry' && l.id === id);
  /** Exact text, or (for an add) the same entry with a word or two added or dropped. */
  const existsSameText = (text: string, near: boolean): boolean => {
    const norm = normalizeForCompare(text);
    const words = wordSet(norm);
    return current().some((l) => {
      if (l.kind !== 'entry' || l.superseded) return false;
      const other = normalizeForCompare(l.text);
      return other === norm || (near && nearSame(words, wordSet(other)));
    });
  };

  const earlier = entriesByMessage(lines);
  const addsPerMessage = new Map<string, number>();
  for (const op of ops) if (op.op !== 'forget' && op.explicit) countUp(addsPerMessage, messageOfSource(op.source));

  for (const op of ops) {
    if (op.op !== 'forget' && op.explicit) {
      // A person's request is applied once per message: a turn run again after a crash (its reply
      // never went) finds the entry its message already made, even one a person has reworded since.
      const msg = messageOfSource(op.source);
      const prior = msg ? earlier.get(msg) : undefined;
      const norm = normalizeForCompare(oneLine(op.text));
      const made = prior?.find((l) => normalizeForCompare(l.text) === norm) ?? (prior?.length && addsPerMessage.get(msg!) === 1 ? prior[0] : undefined);
      if (made?.id) {
        result.applied.push({ op, id: made.id, earlier: true });
        continue;
      }
    }
    if (op.op === 'forget' && !op.id && op.text) {
      // Ids were just given to hand-written lines above; the line is found by its words.
      const line = current().find((l) => l.kind === 'entry' && !l.superseded && l.text === op.text);
      if (!line?.id) {
        result.skipped.push({ op, why: `no entry "${op.text}" in MEMORY.md` });
        continue;
      }
      out.splice(line.index, 1);
      result.forgotten.push({ id: line.id, text: line.text });
      result.applied.push({ op, id: line.id });
      continue;
    }
    if (op.op === 'forget') {
      if (!ENTRY_ID.test(op.id)) {
        result.skipped.push({ op, why: `"${op.id}" is not an entry id (ids look like m-1a2b3c)` });
        continue;
      }
      const line = findById(op.id);
      if (!line) {
        result.skipped.push({ op, why: `no entry ${op.id} in MEMORY.md` });
        continue;
      }
      out.splice(line.index, 1);
      result.forgotten.push({ id: op.id, text: line.text });
      result.applied.push({ op, id: op.id });
      continue;
    }
    const text = oneLine(op.text);
    if (!text) {
      result.skipped.push({ op, why: 'empty text' });
      continue;
    }
    if (containsSecret(text)) {
      result.skipped.push({ op, why: 'it looks like it contains a password, key or private URL, which is not stored' });
      continue;
    }
    if (!op.explicit && matchesTombstone(text, opts.tombstones)) {
      result.skipped.push({ op, why: 'matches a forgotten entry' });
      continue;
    }
    if (op.op === 'supersede') {
      // The replacement is already an entry (an earlier op of the same run replaced another
      // statement of this fact with it): strike the old one in favour of it, add no second copy.
      const norm = normalizeForCompare(text);
      const same = current().find((l) => l.kind === 'entry' && !l.superseded && l.id && l.id !== op.id && normalizeForCompare(l.text) === norm);
      const old = same && ENTRY_ID.test(op.id) ? findById(op.id) : undefined;
      if (same?.id && old && !old.superseded) {
        out[old.index] = formatSuperseded(old, same.id, date);
        result.applied.push({ op, id: same.id });
        continue;
      }
    }
    if (existsSameText(text, op.op === 'add')) {
      result.skipped.push({ op, why: 'already in MEMORY.md' });
      continue;
    }
    const id = newEntryId(taken, opts.random);
    const entry = formatEntry({ id, text, source: op.source, date });
    if (op.op === 'supersede') {
      if (!ENTRY_ID.test(op.id)) {
        result.skipped.push({ op, why: `"${op.id}" is not an entry id` });
        continue;
      }
      const old = findById(op.id);
      if (!old) {
        result.skipped.push({ op, why: `no entry ${op.id} in MEMORY.md` });
        continue;
      }
      if (old.superseded) {
        result.skipped.push({ op, why: `${op.id} is already superseded` });
        continue;
      }
      out[old.index] = formatSuperseded(old, id, date);
      out.splice(old.index + 1, 0, entry);
      result.applied.push({ op, id });
      continue;
    }
    insertUnderSection(out, op.section ?? DEFAULT_SECTION, entry);
    result.applied.push({ op, id });
  }

  const changed = result.applied.length > 0 || result.idsAssigned > 0;
  result.text = changed ? out.join('\n') + '\n' : original;
  return result;
}

/** Appends at the end of the named `##` section, creating the section at the end if absent. */
function insertUnderSection(out: string[], section: string, entry: string): void {
  const want = section.trim().toLowerCase();
  // A `# comment` in a person's shell snippet is not a heading, and an entry written inside a code
  // fence or an unclosed comment would be invisible (never recalled, superseded or forgotten).
  const { hidden, openFrom } = hiddenSpans(out);
  const limit = openFrom ?? out.length;
  let start = -1;
  for (let i = 0; i < limit; i++) {
    const m = hidden[i] ? null : /^\s{0,3}##\s+(.*)$/.exec(out[i]);
    if (m && m[1].trim().toLowerCase() === want) {
      start = i;
      break;
    }
  }
  if (start < 0) {
    let at = limit;
    while (at > 0 && out[at - 1].trim() === '') at--;
    const block = [`## ${section}`, '', entry];
    if (at > 0) block.unshift('');
    if (at < out.length) block.push('');
    out.splice(at, out.length === limit ? out.length - at : 0, ...block);
    return;
  }
  let end = limit;
  for (let i = start + 1; i < limit; i++) {
    if (!hidden[i] && /^\s{0,3}#{1,2}\s/.test(out[i])) {
      end = i;
      break;
    }
  }
  let at = end;
  while (at > start + 1 && out[at - 1].trim() === '') at--;
  if (at === start + 1) {
    out.splice(at, 0, '', entry);
    return;
  }
  out.splice(at, 0, entry);
}

function wordSet(norm: string): Set<string> {
  return new Set(norm.split(' ').filter(Boolean));
}

/**
 * The same entry with a word or two added or dropped ("still", "now", an adjective): at least five
 * words each, one's words all inside the other's, four in five shared, and no number among the
 * difference. A word *replaced* ("MySQL" → "Postgres") is a different statement, never a repeat.
 * Consolidation shows the model only a slice of a large memory, so this check, over every entry, is
 * what keeps a repeat of an entry it was not shown out.
 */
function nearSame(a: Set<string>, b: Set<string>): boolean {
  if (a.size < 5 || b.size < 5) return false;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const w of small) if (!large.has(w)) return false;
  if (small.size / large.size < NEAR_SAME_JACCARD) return false;
  for (const w of large) if (!small.has(w) && /\d/.test(w)) return false;
  return true;
}

/** Word-set overlap (Jaccard) from which two entries are one. */
const NEAR_SAME_JACCARD = 0.8;

/** The message id a provenance ends with (`al, msg 123…`), if any: a name that says "msg" does not count. */
export function messageOfSource(source: string | undefined): string | undefined {
  return source ? /(?:^|, )msg ([^\s,\]]+)$/.exec(source)?.[1] : undefined;
}

/** Entries (struck ones too) by the message their provenance names. */
function entriesByMessage(lines: MemoryLine[]): Map<string, MemoryLine[]> {
  const out = new Map<string, MemoryLine[]>();
  for (const l of lines) {
    const msg = l.kind === 'entry' ? messageOfSource(l.source) : undefined;
    if (!msg) continue;
    const list = out.get(msg) ?? [];
    list.push(l);
    out.set(msg, list);
  }
  return out;
}

function countUp(counts: Map<string, number>, key: string | undefined): void {
  if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
}
