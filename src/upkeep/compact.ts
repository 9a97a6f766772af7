import { z } from 'zod';
import { ConversationState, conversationTokens, Turn } from '../shared/conversation';
import type { ConversationStore } from '../chat/conversationStore';
import { appendHistoryBlock } from '../memory/history';
import type { ChannelRef } from '../memory/paths';
import { runSideTask, SideTaskDeps, transcriptOf } from '../llm/sideTask';
import { tagged } from '../prompt/tags';
import { redactSecrets } from '../shared/secrets';

/** The structured summary that replaces older turns (pi's proven section set). */
export const SummarySchema = z.object({
  goal: z.string(),
  constraints_preferences: z.array(z.string()).default([]),
  progress: z
    .object({
      done: z.array(z.string()).default([]),
      in_progress: z.array(z.string()).default([]),
      blocked: z.array(z.string()).default([]),
    })
    .default({ done: [], in_progress: [], blocked: [] }),
  key_decisions: z.array(z.string()).default([]),
  next_steps: z.array(z.string()).default([]),
  critical_context: z.array(z.string()).default([]),
});
export type Summary = z.infer<typeof SummarySchema>;

export function renderSummary(s: Summary): string {
  const list = (xs: string[]) => (xs.length ? xs.map((x) => `- ${x.replace(/\s+/g, ' ').trim()}`).join('\n') : '- (none)');
  return [
    '## Goal',
    s.goal.trim() || '(none)',
    '## Constraints & Preferences',
    list(s.constraints_preferences),
    '## Progress',
    `Done:\n${list(s.progress.done)}`,
    `In progress:\n${list(s.progress.in_progress)}`,
    `Blocked:\n${list(s.progress.blocked)}`,
    '## Key Decisions',
    list(s.key_decisions),
    '## Next Steps',
    list(s.next_steps),
    '## Critical Context',
    list(s.critical_context),
  ].join('\n');
}

/**
 * Pure: whether to compact and where to cut. Keeps the most recent `keepRecent` exchanges
 * verbatim; the cut always lands on a user turn so the kept conversation starts as providers require.
 */
export function planCompaction(conv: ConversationState, budgetTokens: number, keepRecent: number, force = false, maxCut = Infinity): { cut: number } | null {
  if (!force && conversationTokens(conv) <= budgetTokens) return null;
  // Never cut turns MEMORY.md consolidation has not read yet (unless the provider forces it).
  let cut = Math.max(0, Math.min(conv.turns.length - keepRecent * 2, force ? Infinity : maxCut));
  while (cut > 0 && conv.turns[cut]?.role !== 'user') cut--;
  if (cut < 2) return null;
  return { cut };
}

const INSTRUCTIONS = [
  'You compact the conversation of a team chat channel with an assistant. Older turns will be replaced by your summary, so keep everything needed to continue the work:',
  'the goal, constraints and preferences, progress (done / in progress / blocked), key decisions with their reasons, next steps, and critical context (names, numbers, paths, links).',
  'Merge the earlier summary, if any, with the new turns. Be concrete and brief. Never include passwords, tokens or keys.',
].join('\n');

/** Turns a failed summary trimmed, waiting in `.minutes/pending-summary.json` for the next try (loose: unknown keys are kept). */
const PendingSummary = z.looseObject({ turns: z.array(Turn) });

function pendingFile(deps: SideTaskDeps, ref: ChannelRef): string {
  return deps.store.paths(ref).pendingSummary;
}

/**
 * Replaces the turns before the cut with one structured summary and writes a HISTORY.md block.
 * If the summary call fails, the conversation is trimmed anyway (so replies stay within the
 * provider's limit) and the trimmed turns wait in `.minutes/pending-summary.json` for the next try.
 */
export async function compactConversation(
  deps: SideTaskDeps,
  conversations: ConversationStore,
  ref: ChannelRef,
  o: { budgetTokens: number; keepRecent: number; force?: boolean; memoryCursor?: number },
): Promise<'compacted' | 'trimmed' | 'not-needed'> {
  const conv = await conversations.get(ref);
  const maxCut = o.memoryCursor === undefined ? Infinity : o.memoryCursor - conv.compactedTurns;
  const pendingState = await deps.store.readState(pendingFile(deps, ref), PendingSummary);
  const pending = pendingState?.turns ?? [];
  // Turns trimmed by an earlier failed summary are summarized even when nothing needs cutting now.
  const plan = planCompaction(conv, o.budgetTokens, o.keepRecent, o.force, maxCut) ?? (pending.length ? { cut: 0 } : null);
  if (!plan) return 'not-needed';
  const old = [...pending, ...conv.turns.slice(0, plan.cut)];
  const input = [tagged('earlier_summary', conv.summary), tagged('turns_to_summarize', transcriptOf(old, 60_000))].filter(Boolean).join('\n');
  const cutTurns = conv.turns.slice(0, plan.cut);
  let swapped = false;
  const swap = async (summary: string | undefined) => {
    const { saved } = await conversations.update(ref, (cur) => {
      // Turns appended while the summary was being written stay: only the summarized ones go.
      const stillThere = cur.turns.slice(0, plan.cut).every((t, i) => t.at === cutTurns[i].at && t.content === cutTurns[i].content);
      if (!stillThere) return cur;
      swapped = true;
      return { ...cur, summary: summary ?? cur.summary, turns: cur.turns.slice(plan.cut), compactedTurns: cur.compactedTurns + plan.cut };
    });
    await saved;
  };
  let summary: Summary;
  try {
    summary = await runSideTask(deps, {
      ref,
      task: 'compact',
      instructions: INSTRUCTIONS,
      input,
      schema: SummarySchema,
      description: 'the conversation summary',
    });
  } catch (err) {
    deps.logger.warn({ err }, 'compaction summary failed; trimming the conversation and retrying the summary later');
    await deps.store.writeState(ref, pendingFile(deps, ref), { ...pendingState, turns: old });
    await swap(undefined);
    return 'trimmed';
  }
  // The summary is the model's words and is stored in conversation.json: redacted like a reply.
  const rendered = redactSecrets(renderSummary(summary));
  await swap(rendered);
  // Someone else (a /new, another compaction) changed the conversation meanwhile: nothing to record.
  if (!swapped) return 'not-needed';
  if (pending.length) await deps.store.writeState(ref, pendingFile(deps, ref), { ...pendingState, turns: [] });
  await appendHistoryBlock(deps.store, ref, {
    at: deps.clock(),
    title: 'Conversation compacted',
    body:
      [
        summary.goal ? `Goal: ${summary.goal}` : '',
        summary.progress.done.length ? `Done: ${summary.progress.done.join('; ')}` : '',
        summary.key_decisions.length ? `Decisions: ${summary.key_decisions.join('; ')}` : '',
        summary.next_steps.length ? `Next: ${summary.next_steps.join('; ')}` : '',
      ]
        .filter(Boolean)
        .join('\n') || `${old.length} turns summarized.`,
  });
  return 'compacted';
}
