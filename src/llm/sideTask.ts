import type { z } from 'zod';
import type { Logger } from '../log/logger';
import { completeJson } from './json';
import type { ChatMessage, ModelClient, Usage } from './types';
import type { RecallService } from '../recall/service';
import type { ChannelRef } from '../memory/paths';
import type { ChannelStore } from '../memory/store';

/** Where a side task's tokens are counted per channel (the chat layer's UsageBook). */
export interface UsageRecorder {
  add(ref: ChannelRef, model: string, purpose: 'side', u: Usage, at: Date): Promise<void>;
}

/**
 * The one function every side model call passes through (SESSION.md refresh, consolidation,
 * compaction summaries, the Secretary): JSON mode, usage recorded per channel, one log line.
 */
export interface SideTaskDeps {
  model: ModelClient;
  store: ChannelStore;
  logger: Logger;
  clock: () => Date;
  /** Where side-task tokens are counted; absent in tools that do not report usage. */
  usage?: UsageRecorder;
  /** Recall, for tasks that show the model only the memory that matters (consolidation). */
  recall?: RecallService;
}

export async function runSideTask<T>(
  deps: SideTaskDeps,
  o: { ref: ChannelRef; task: string; instructions: string; input: string; schema: z.ZodType<T>; description?: string; maxTokens?: number },
): Promise<T> {
  const started = Date.now();
  const messages: ChatMessage[] = [{ role: 'user', content: o.input }];
  const res = await completeJson(
    deps.model,
    {
      purpose: 'side',
      system: [{ text: o.instructions }],
      messages,
      maxTokens: o.maxTokens,
    },
    o.schema,
    { description: o.description, logger: deps.logger },
  );
  await deps.usage?.add(o.ref, res.model, 'side', res.usage, deps.clock());
  deps.logger.info({ task: o.task, attempts: res.attempts, ms: Date.now() - started, usage: res.usage }, 'side task done');
  return res.value;
}

/** Renders turns for a side task, newest last, clipped from the front to a character budget. */
export function transcriptOf(turns: { role: string; content: string }[], maxChars: number): string {
  const parts: string[] = [];
  let used = 0;
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i];
    const text = t.role === 'assistant' ? `[bot]: ${t.content}` : t.content;
    if (used + text.length > maxChars && parts.length) break;
    parts.unshift(text.length > maxChars ? text.slice(text.length - maxChars) : text);
    used += text.length;
  }
  return parts.join('\n\n');
}
