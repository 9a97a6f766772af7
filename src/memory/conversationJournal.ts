import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { Logger } from '../log/logger';
import { ConversationState, emptyConversation, Turn } from '../shared/conversation';
import { keepAside } from './keptAside';
import { readStateFile } from './stateFile';
import { StoreError } from './storeErrors';

/**
 * A stored conversation is a snapshot (`conversation.json`) plus a journal beside it
 * (`conversation.journal.jsonl`): a stored turn is one line appended to the journal, instead of
 * the whole conversation rewritten. Every other change (a compaction, /new, a deleted message)
 * writes the snapshot, which records the number of the last journal line it contains.
 *
 * A journal line is `{"seq":n,"turns":[…]}`: the turns one change appended, numbered from the
 * snapshot's `journalSeq` up. Loading takes the snapshot and appends the turns of every line
 * numbered above its `journalSeq`, in order, each number once; so a line already folded into a
 * snapshot is never applied twice, whether or not the journal was cut after it. A torn last line
 * (a crash mid-write) is dropped, and cut off the file before the next append.
 */
export const JournalLine = z.looseObject({ seq: z.number().int().positive(), turns: z.array(Turn) });
export type JournalLine = z.infer<typeof JournalLine>;

/** A conversation as loaded: its state, and where its journal stands. */
export interface JournaledConversation {
  state: ConversationState;
  /** The number of the last line applied (the snapshot's journalSeq if none was). */
  seq: number;
  /** Bytes of whole lines in the journal (0: none, or no file). */
  journalBytes: number;
  journalExists: boolean;
}

export interface JournalReadOptions {
  root: string;
  log: Logger;
}

/** Whether a conversation has anything stored yet (a synchronous check for the hot path). */
export function conversationExistsSync(snapshot: string, journal: string): boolean {
  return fs.existsSync(snapshot) || fs.existsSync(journal);
}

export async function readJournaledConversation(snapshot: string, journal: string, o: JournalReadOptions): Promise<JournaledConversation> {
  // The count is read leniently, as it always was: a file without it starts from 0.
  const snap = await readStateFile(snapshot, ConversationState.partial({ compactedTurns: true }), { root: o.root, log: o.log });
  const { journalSeq, ...rest } = (snap ?? {}) as Partial<ConversationState> & { journalSeq?: unknown };
  const state: ConversationState = snap ? { ...(rest as ConversationState), compactedTurns: snap.compactedTurns ?? 0 } : emptyConversation();
  let seq = typeof journalSeq === 'number' && Number.isInteger(journalSeq) ? journalSeq : 0;
  let bytes: Buffer;
  try {
    bytes = await fsp.readFile(journal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return { state, seq, journalBytes: 0, journalExists: false };
  }
  const whole = bytes.lastIndexOf(0x0a) + 1;
  const rel = path.relative(o.root, journal);
  // Each whole line parsed once: a line, null when unreadable, undefined when blank.
  const lines = bytes
    .subarray(0, whole)
    .toString('utf8')
    .split('\n')
    .map((text) => (text.trim() ? parseLine(text) : undefined));
  const unreadable = lines.filter((l) => l === null).length;
  // Whatever is not applied (a torn tail, an unreadable line, bytes that are not UTF-8) is gone
  // from the conversation once the journal is cut after the next snapshot: keep the journal's
  // bytes as they are, beside it, first (keptAside.ts), and stop if that cannot be done.
  if (whole < bytes.length || unreadable || !isUtf8(bytes)) {
    const kept = await keepAside(journal, bytes).catch((err: Error) => {
      throw new StoreError(`cannot keep a copy of the damaged ${rel} beside it (${err.message}): free disk space or fix the folder's permissions`);
    });
    o.log.warn(
      { file: rel, keptAs: path.relative(o.root, kept), unreadableLines: unreadable, tornTail: whole < bytes.length },
      'a conversation journal holds lines that cannot be applied; its bytes are kept beside it',
    );
  }
  if (whole < bytes.length) {
    // A crash tore the last line: cut it off, or the next line would be glued to it and lost too.
    await fsp.truncate(journal, whole);
    o.log.warn({ file: rel }, 'dropped the torn last line of a conversation journal (a crash mid-write)');
  }
  const turns = [...state.turns];
  for (const line of lines) {
    if (line === undefined) continue;
    if (!line) {
      o.log.warn({ file: rel }, 'skipped an unreadable line of a conversation journal');
      continue;
    }
    if (line.seq <= seq) continue;
    turns.push(...line.turns);
    seq = line.seq;
  }
  return { state: { ...state, turns }, seq, journalBytes: whole, journalExists: true };
}

function parseLine(text: string): JournalLine | null {
  try {
    const checked = JournalLine.safeParse(JSON.parse(text));
    return checked.success ? checked.data : null;
  } catch {
    return null;
  }
}

/** One journal line, as written. */
export function journalLineText(seq: number, turns: Turn[]): string {
  return JSON.stringify({ seq, turns } satisfies JournalLine) + '\n';
}

/** The snapshot as written: the state and the last journal line it contains. */
export function snapshotValue(state: ConversationState, journalSeq: number): ConversationState & { journalSeq: number } {
  return { ...state, journalSeq };
}

/**
 * Empties the journal once a snapshot holding all of it has landed (synchronously, so no append
 * can come between the caller's check and the cut). Only lines the snapshot holds are lost if a
 * power cut undoes the cut, and those are skipped by number.
 */
export function cutJournalSync(journal: string): void {
  try {
    fs.truncateSync(journal, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** A clean shutdown folds the journal into the snapshot and removes it, so conversation.json alone is the conversation. */
export function removeJournalSync(journal: string): void {
  fs.rmSync(journal, { force: true });
}
