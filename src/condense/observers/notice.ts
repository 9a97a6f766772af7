import { z } from 'zod';
import type { ChannelRef } from '../../memory/paths';
import { tagged } from '../../prompt/tags';
import { runSideTask, SideTaskDeps } from '../../llm/sideTask';

/**
 * Noticing a decision nobody condensed. A cheap rule in code first — enough discussion (at least
 * MIN_MESSAGES from at least MIN_PEOPLE people) that ends on words of agreement — and only then one
 * small side-task call asking whether a decision was reached. Each discussion is judged once.
 */
export const MIN_MESSAGES = 6;
export const MIN_PEOPLE = 2;
/** The most recent messages a judgement reads (and a window keeps). */
export const WINDOW = 30;
/** Messages at the end of the window in which agreement is looked for. */
const TAIL = 3;
/**
 * Words people use when a discussion lands. Deliberately narrow: a missed conclusion costs an offer,
 * a false one costs a model call (and a bad offer only if the model agrees).
 */
const AGREEMENT =
  /\b(agreed|agree|decided|decision is|let'?s (go with|do it|do that|ship)|we('ll| will) (go with|use|ship)|go with (it|that|option)|settled|consensus|sounds good,? (let'?s|go)|ship it|approved|lgtm|final answer|that's the plan|it's a deal|deal\.?$)/i;

export interface Observed {
  id: string;
  authorId: string;
  authorName: string;
  content: string;
  at: number;
}

/** Pure: whether this window is worth one model call. */
export function worthAsking(window: Observed[]): boolean {
  if (window.length < MIN_MESSAGES) return false;
  if (new Set(window.map((m) => m.authorId)).size < MIN_PEOPLE) return false;
  return window.slice(-TAIL).some((m) => AGREEMENT.test(m.content));
}

export const NoticeSchema = z.object({ decided: z.boolean(), decision: z.string().default('') });

const INSTRUCTIONS = [
  'You read the end of a team chat discussion and say whether the people in it reached a decision.',
  "A decision: they agreed on what to do, choose or adopt (not a question still open, not one person's suggestion nobody accepted).",
  'Return {"decided": true|false, "decision": "..."}: when decided, the decision in one short sentence; otherwise "".',
].join('\n');

/** The one side-task call of a qualifying discussion. */
export async function judgeDiscussion(deps: SideTaskDeps, ref: ChannelRef, window: Observed[]): Promise<{ decided: boolean; decision: string }> {
  const lines = window.slice(-WINDOW).map((m) => `${m.authorName}: ${m.content.replace(/\s+/g, ' ').slice(0, 500)}`);
  const r = await runSideTask(deps, {
    ref,
    task: 'notice-decision',
    instructions: INSTRUCTIONS,
    input: tagged('discussion', lines.join('\n')),
    schema: NoticeSchema,
    description: '{"decided", "decision"}',
    maxTokens: 150,
  });
  return { decided: r.decided, decision: r.decision.replace(/\s+/g, ' ').trim().slice(0, 300) };
}
