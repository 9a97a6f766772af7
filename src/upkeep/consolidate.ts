import { z } from 'zod';
import { MAX_ENTRY_CHARS } from '../memory/grammar';
import type { ConversationState } from '../shared/conversation';
import type { MemoryOp } from '../memory/memoryOps';
import { redactSecrets } from '../shared/secrets';
import type { ChannelRef } from '../memory/paths';
import { runSideTask, SideTaskDeps, transcriptOf } from '../llm/sideTask';
import { memorySlice } from './memorySlice';
import { tagged } from '../prompt/tags';
import { explicitMemoryRequest } from '../chat/explicitRequests';

/**
 * MEMORY.md consolidation: the model proposes operations on entries from the messages since this
 * conversation's cursor; code checks them against an explicit durability rule and applies them
 * through the store's one write path.
 *
 * The rule. Durable: decisions, stable preferences, constraints, facts about the project or the
 * people that stay true for weeks, and open loops someone must come back to. Not durable: the
 * step-by-step state of the current task (that is SESSION.md), greetings, thanks, jokes, one-off
 * questions, and anything containing a secret.
 */
const DURABLE_KINDS = ['decision', 'preference', 'constraint', 'fact', 'open_loop'] as const;

export const OpsSchema = z.object({
  operations: z
    .array(
      z.discriminatedUnion('op', [
        z.object({
          op: z.literal('add'),
          kind: z.enum(DURABLE_KINDS),
          text: z.string(),
          reason: z.string().default(''),
          source_message: z.string().optional(),
        }),
        z.object({
          op: z.literal('supersede'),
          id: z.string(),
          kind: z.enum(DURABLE_KINDS),
          text: z.string(),
          reason: z.string().default(''),
          source_message: z.string().optional(),
        }),
        z.object({ op: z.literal('forget'), id: z.string(), reason: z.string().default('') }),
      ]),
    )
    .default([]),
});
export type ProposedOps = z.infer<typeof OpsSchema>;

/** Characters of new messages one run reads; the rest waits for the next run. */
const WINDOW_CHARS = 24_000;

/** Bounds on one run: an abnormal reply can do little harm. */
export const MAX_OPS_PER_RUN = 12;
const MIN_TEXT = 12;
const MAX_TEXT = MAX_ENTRY_CHARS;
/** Working state phrased as a fact is still working state. */
const WORK_STATE = /^(currently|right now|at the moment|today|now|next,?|the next step|todo|i am|i'm|we are (now )?working on|working on)\b/i;
const SMALL_TALK = /^(thanks|thank you|ok(ay)?|lol|haha|good (morning|night|evening)|hello|hi|hey)\b/i;

export function gateOps(
  proposed: ProposedOps,
  source: string,
  known: Map<string, string> = new Map(),
): { ops: MemoryOp[]; rejected: { text: string; why: string }[] } {
  const ops: MemoryOp[] = [];
  const rejected: { text: string; why: string }[] = [];
  for (const p of proposed.operations.slice(0, MAX_OPS_PER_RUN)) {
    // Removing an entry is a person's call (an admin's "forget …" or /memory forget): a model that
    // misreads a chat, or follows an instruction planted in it, must not be able to delete what
    // someone wrote. A wrong entry is corrected by superseding it, which keeps the old line visible.
    if (p.op === 'forget') {
      rejected.push({ text: p.id, why: 'forgetting needs a person (an admin\'s "forget …" or /memory forget)' });
      continue;
    }
    const text = p.text.replace(/\s+/g, ' ').trim();
    if (text.length < MIN_TEXT) {
      rejected.push({ text, why: 'too short to be a durable fact' });
      continue;
    }
    if (text.length > MAX_TEXT) {
      rejected.push({ text, why: 'too long for one entry' });
      continue;
    }
    if (WORK_STATE.test(text)) {
      rejected.push({ text, why: 'working state belongs in SESSION.md' });
      continue;
    }
    if (SMALL_TALK.test(text)) {
      rejected.push({ text, why: 'small talk' });
      continue;
    }
    // Provenance: the message the fact came from when the model names one that is in the window.
    const from = (p.source_message && known.get(p.source_message)) || source;
    ops.push(p.op === 'add' ? { op: 'add', text, source: from, reason: p.reason } : { op: 'supersede', id: p.id, text, source: from, reason: p.reason });
  }
  return { ops, rejected };
}

const INSTRUCTIONS = [
  "You keep the durable memory (MEMORY.md) of a team chat channel. Read the new messages and propose operations on the memory's entries.",
  'Add only what stays true for weeks: decisions, stable preferences, constraints, facts about the project or people, and open loops someone must return to.',
  'Do NOT add: the step-by-step state of the current task, greetings, thanks, jokes, one-off questions, speculation, or anything the bot said that nobody confirmed.',
  'The memory entries shown are those related to the new messages (all of them while memory is small).',
  'When a new message contradicts or replaces an entry, use "supersede" with that entry\'s id (never add a contradicting entry beside it).',
  'Never remove entries: when someone says an entry is wrong, "supersede" it with the correction. Never write passwords, tokens or keys.',
  'Each text is one self-contained sentence that makes sense without the conversation (name the subject). Skip anything already in memory.',
  'Give source_message: the (msg …) id of the message the fact comes from.',
  'Most batches of messages contain nothing durable: then return {"operations": []}.',
].join('\n');

/**
 * Consolidates the turns after `cursorTurn` (absolute turn index). Returns the new cursor; the
 * caller stores it only after this resolves, so a failed run is retried with the same messages.
 */
export async function consolidateMemory(
  deps: SideTaskDeps,
  ref: ChannelRef,
  conv: ConversationState,
  cursorTurn: number,
): Promise<{ cursor: number; applied: number; rejected: number }> {
  const start = Math.max(0, cursorTurn - conv.compactedTurns);
  // Oldest first, as many turns as fit: the cursor then moves exactly past what the model read,
  // and a long backlog is worked off over several runs instead of being skipped.
  let used = 0;
  let count = 0;
  for (const t of conv.turns.slice(start)) {
    if (count > 0 && used + t.content.length > WINDOW_CHARS) break;
    used += t.content.length;
    count++;
  }
  const window = conv.turns.slice(start, start + count);
  const end = conv.compactedTurns + start + count;
  if (!window.some((t) => t.role === 'user')) return { cursor: end, applied: 0, rejected: 0 };
  const parent = deps.store.parentRef(ref);
  const memory = (await deps.store.read(parent, 'MEMORY.md')) ?? '';
  const slice = await memorySlice({
    memory,
    queries: window.filter((t) => t.role === 'user').flatMap((t) => t.parts ?? [t.content]),
    recall: deps.recall,
    paths: deps.store.paths(parent),
    root: deps.store.root,
    now: deps.clock(),
  });
  const shown = slice.entries.map((l) => `${l.id ?? '(no id yet)'}: ${l.text}`);
  const note =
    slice.entries.length < slice.total ? `(${slice.entries.length} of ${slice.total} entries: those related to the new messages and the newest)\n` : '';
  const input = [
    tagged('memory_entries', shown.length ? note + shown.join('\n') : '(none)'),
    tagged('new_messages', transcriptOf(window.map(withMessageIds), WINDOW_CHARS)),
  ].join('\n');
  const proposed = await runSideTask(deps, {
    ref,
    task: 'consolidate',
    instructions: INSTRUCTIONS,
    input,
    schema: OpsSchema,
    description: 'operations on memory entries',
  });
  const ids = window.flatMap((t) => t.ids ?? []);
  const known = new Map<string, string>();
  window.forEach((t) => t.ids?.forEach((id, i) => known.set(id, `${authorOf(t.parts?.[i]) ?? 'chat'}, msg ${id}`)));
  const source = ids.length > 1 ? `chat, msgs ${ids[0]}–${ids[ids.length - 1]}` : ids.length ? `chat, msg ${ids[0]}` : 'chat';
  const { ops, rejected } = gateOps(proposed, source, known);
  for (const r of rejected) deps.logger.debug({ text: redactSecrets(r.text).slice(0, 80), why: r.why }, 'memory op rejected by the durability rule');
  const result = ops.length ? await deps.store.applyMemoryOps(ref, ops) : { applied: [] };
  return { cursor: end, applied: result.applied.length, rejected: rejected.length };
}

/** A user turn with each message tagged by its id, so the model can say where a fact came from. */
function withMessageIds(t: ConversationState['turns'][number]): { role: string; content: string } {
  if (t.role !== 'user' || !t.ids || !t.parts || t.ids.length !== t.parts.length) return t;
  return { role: t.role, content: t.parts.map((p, i) => `(msg ${t.ids![i]}) ${p}`).join('\n') };
}

/** "[2026-11-21 10:00 UTC] alice: text" → "alice". */
function authorOf(part: string | undefined): string | undefined {
  return part ? /^\[[^\]]*\] ([^:]+):/.exec(part)?.[1] : undefined;
}

/** Kept for callers that need only the operations; the rules live in explicitRequests.ts. */
export function explicitMemoryOps(message: string, memory: string, source: string): MemoryOp[] {
  return explicitMemoryRequest(message, memory, source).ops;
}
