import { MemoryLine, parseMemory } from '../memory/entries';
import type { MemoryOp } from '../memory/memoryOps';

/**
 * Who may make the bot forget a MEMORY.md entry, by chat ("forget …") or by `/memory forget`: an
 * admin, or the person whose words the entry holds. That person is known only by the user id the
 * entry's provenance records (`[from: ana, user 4242…, msg 9191…, 2026-11-02]`), which is written
 * when someone asks the bot to remember something through a transport that knows their id
 * (Discord). A display name is not proof: anyone can take another's. An entry without a recorded
 * id (an older one, a fact upkeep inferred from chat, a condensation's decision, a hand-written
 * line) is an admin's to forget. Nothing unset grants: no admin flag, no user id, no recorded
 * author, no match. All pure.
 */
export interface Forgetter {
  /** The transport judged the asker an admin (Discord: the admin roles, or Manage Messages). */
  admin?: boolean;
  /** The asker's user id, when the transport knows it. */
  userId?: string;
}

/** `…, user <id>, msg <id>` at the end of a source: only what `requestSource` appended counts, not a name that says it. */
const RECORDED_AUTHOR = /(?:^|, )user (\d{1,20}), msg [^,\]]+$/;

/**
 * The provenance of an entry saved on someone's request: their name, their user id when known, the
 * message. With an id, brackets in the name become parentheses: a `]` would end the provenance tag
 * early, and the entry would lose its author.
 */
export function requestSource(m: { id: string; authorName: string; authorId?: string }): string {
  if (!m.authorId || !/^\d{1,20}$/.test(m.authorId)) return `${m.authorName}, msg ${m.id}`;
  return `${m.authorName.replace(/\[/g, '(').replace(/\]/g, ')')}, user ${m.authorId}, msg ${m.id}`;
}

/** The user id an entry's provenance records as the person who said it, if any. */
export function recordedAuthor(source: string | undefined): string | undefined {
  return source === undefined ? undefined : RECORDED_AUTHOR.exec(source)?.[1];
}

export function mayForgetEntry(who: Forgetter, entry: Pick<MemoryLine, 'source'> | undefined): boolean {
  if (who.admin === true) return true;
  const author = recordedAuthor(entry?.source);
  return author !== undefined && who.userId !== undefined && who.userId === author;
}

/** The entry a forget op names in `memory` (by id, or by its words for a line without one yet). */
function entryOf(op: Extract<MemoryOp, { op: 'forget' }>, memory: MemoryLine[]): MemoryLine | undefined {
  return memory.find((l) => l.kind === 'entry' && (op.id ? l.id === op.id : l.text === op.text));
}

/** Splits a request's ops into those `who` may make and the forget ops refused (by what they name). */
export function permittedOps(ops: MemoryOp[], memory: string, who: Forgetter): { ops: MemoryOp[]; refused: string[] } {
  if (!ops.some((op) => op.op === 'forget')) return { ops, refused: [] };
  const lines = parseMemory(memory);
  const out: MemoryOp[] = [];
  const refused: string[] = [];
  for (const op of ops) {
    if (op.op !== 'forget' || mayForgetEntry(who, entryOf(op, lines))) out.push(op);
    else refused.push(op.id || `"${op.text ?? ''}"`);
  }
  return { ops: out, refused };
}

/** What the asker is told when an entry is not theirs to forget. */
export function forgetRefused(what: string): string {
  return `Only admins and the person who said it can make me forget ${what}`;
}
