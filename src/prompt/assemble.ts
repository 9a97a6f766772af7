import type { ChatMessage, SystemBlock } from '../llm/types';
import type { ConversationState } from '../shared/conversation';
import { tagged } from './tags';

/**
 * The prompt, stable to volatile:
 *   1. bot instructions + workspace SOUL.md / AGENTS.md
 *   2. the channel's CONTEXT.md (bounded), then the context packages active in this conversation
 *                                                     ← cache breakpoint (end of the stable prefix)
 *   3. the compaction summary, if any                 ← breakpoint (changes only at compaction)
 *   4. the conversation since the last compaction     ← breakpoint on the last earlier turn
 *   5. the newest user message, with the recall block attached
 * Layers 1-3 are byte-identical between turns until their inputs change; layer 4 only grows by
 * appending. That is what lets Anthropic's breakpoints and OpenAI's automatic prefix cache hit.
 */
export interface PromptInputs {
  instructions: string;
  soul?: string | null;
  agents?: string | null;
  context?: string | null;
  contextMaxChars: number;
  /** The active context packages' block (prompt/packagesBlock.ts), or '' when none is active. */
  packages?: string;
  conversation: ConversationState;
  /** The newest user turn: every human message since the bot's last reply, merged. */
  newest: string;
  /** The rendered recall block, or '' when recall abstained. Never stored in the conversation. */
  recallBlock: string;
}

export interface AssembledPrompt {
  system: SystemBlock[];
  messages: ChatMessage[];
}

export function assemblePrompt(i: PromptInputs): AssembledPrompt {
  const identity = [i.instructions.trim(), tagged('workspace_soul', i.soul), tagged('workspace_agents', i.agents)].filter(Boolean).join('\n\n');
  const context = boundedContext(i.context, i.contextMaxChars);
  const system: SystemBlock[] = [{ text: identity }];
  if (context) system.push({ text: tagged('channel_context', context) });
  if (i.packages) system.push({ text: i.packages });
  system[system.length - 1].cache = true;
  if (i.conversation.summary) {
    system.push({ text: tagged('earlier_conversation_summary', i.conversation.summary), cache: true });
  }

  const messages: ChatMessage[] = i.conversation.turns.map((t) => ({ role: t.role, content: t.content }));
  if (messages.length) messages[messages.length - 1].cache = true;
  const newest = i.recallBlock ? `${i.recallBlock}\n\n${i.newest}` : i.newest;
  messages.push({ role: 'user', content: newest });
  return { system, messages };
}

/**
 * The bytes above the cache boundary, as one string: what must not change between turns while
 * its inputs do not. Tests compare it across turns.
 */
export function stablePrefix(p: AssembledPrompt): string {
  const lastStable = p.system.findIndex((b) => b.cache);
  return p.system
    .slice(0, lastStable + 1)
    .map((b) => b.text)
    .join('\u0000');
}

/**
 * CONTEXT.md is bounded so one runaway file cannot crowd out the conversation. The newest
 * decisions are at the top (code writes them newest first), so the head is what is kept.
 */
export function boundedContext(text: string | null | undefined, maxChars: number): string {
  const t = (text ?? '').trim();
  if (t.length <= maxChars) return t;
  const cut = t.lastIndexOf('\n', maxChars);
  return `${t.slice(0, cut > maxChars / 2 ? cut : maxChars)}\n[… CONTEXT.md continues; ${t.length - maxChars} more characters not shown]`;
}
