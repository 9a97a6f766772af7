import { z } from 'zod';
import { SESSION_SECTIONS as S } from '../memory/grammar';
import type { ConversationState } from '../shared/conversation';
import { clipWords as clip } from '../memory/entries';
import type { ChannelRef } from '../memory/paths';
import { redactSecrets } from '../shared/secrets';
import { TEMPLATES } from '../memory/templates';
import { runSideTask, SideTaskDeps, transcriptOf } from '../llm/sideTask';
import { tagged } from '../prompt/tags';

/**
 * SESSION.md is the conversation's working state. The model returns JSON; code renders the
 * markdown, so section names and caps hold whatever the model writes.
 */
export const SessionSchema = z.object({
  goal: z.string(),
  current_state: z.string(),
  links: z.array(z.string()).default([]),
  open_questions: z.array(z.string()).default([]),
  next_steps: z.array(z.string()).default([]),
  recent_errors: z.array(z.string()).default([]),
});
export type SessionState = z.infer<typeof SessionSchema>;

/** Per-section caps: SESSION.md is read whole by recall and people; it must stay a page long. */
const CAPS = { items: 8, itemChars: 240, textChars: 600 } as const;

export function renderSession(s: SessionState, updatedAt: Date): string {
  const list = (items: string[]) => {
    const kept = items
      .map((i) => clip(i, CAPS.itemChars))
      .filter(Boolean)
      .slice(0, CAPS.items);
    return kept.length ? kept.map((i) => `- ${i}`).join('\n') : '- (none)';
  };
  const out = [
    '# Session',
    '',
    `<!-- Working state, refreshed by Minutes from the conversation; last refresh ${updatedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC. -->`,
    '',
    `## ${S.goal}`,
    '',
    clip(s.goal, CAPS.textChars) || '(none)',
    '',
    `## ${S.state}`,
    '',
    clip(s.current_state, CAPS.textChars) || '(none)',
    '',
    `## ${S.links}`,
    '',
    list(s.links),
    '',
    `## ${S.questions}`,
    '',
    list(s.open_questions),
    '',
    `## ${S.next}`,
    '',
    list(s.next_steps),
    '',
    `## ${S.errors}`,
    '',
    list(s.recent_errors),
    '',
  ].join('\n');
  return redactSecrets(out);
}

const INSTRUCTIONS = [
  "You maintain the working-state notes (SESSION.md) of a team chat channel's conversation with an assistant.",
  'Given the current notes and the newest part of the conversation, return the updated working state as JSON:',
  '- goal: what the people are trying to get done right now (one sentence).',
  '- current_state: where that work stands.',
  '- links: URLs, files, branches, tickets that matter for the current work.',
  '- open_questions, next_steps, recent_errors (mistakes found and corrections made).',
  'Keep items short. Drop items that are finished or no longer relevant: finished work leaves the notes.',
  'Never include passwords, tokens or keys. Only state what the conversation supports.',
].join('\n');

/** Refreshes SESSION.md from the turns since the last refresh (plus a little context before them). */
export async function refreshSession(deps: SideTaskDeps, ref: ChannelRef, conv: ConversationState, sinceTurn: number): Promise<void> {
  const startedFrom = await deps.store.read(ref, 'SESSION.md');
  const current = startedFrom ?? '';
  const from = Math.max(0, sinceTurn - conv.compactedTurns - 2);
  const input = [
    tagged('current_notes', current.trim() || '(empty)'),
    tagged('earlier_summary', conv.summary),
    tagged('conversation', transcriptOf(conv.turns.slice(from), 16_000)),
  ]
    .filter(Boolean)
    .join('\n');
  const value = await runSideTask(deps, {
    ref,
    task: 'session',
    instructions: INSTRUCTIONS,
    input,
    schema: SessionSchema,
    description: 'the updated working state',
  });
  const rendered = renderSession(value, deps.clock());
  // SESSION.md is re-rendered whole (a shrink is normal when work finishes), but not over a
  // person's edit made while the model was working: that edit is kept and read next time. A file
  // that was missing at the start reads as the template now if it is still missing.
  const untouched = (cur: string) => cur === (startedFrom ?? TEMPLATES['SESSION.md']) || cur === TEMPLATES['SESSION.md'];
  const r = await deps.store.update(ref, 'SESSION.md', (cur) => (untouched(cur) ? rendered : cur), { allowShrink: true });
  if (!r.changed) deps.logger.info('SESSION.md was edited during the refresh; kept the edit, will refresh again later');
}
