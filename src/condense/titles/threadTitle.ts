import { z } from 'zod';
import type { ChannelRef } from '../../memory/paths';
import { redactSecrets } from '../../shared/secrets';
import { tagged } from '../../prompt/tags';
import { runSideTask, SideTaskDeps } from '../../llm/sideTask';

/**
 * The Secretary's title for a thread it opens (🧵, /thread): a short name for the topic and one
 * line saying what the thread is for. One small side-task call; when the model fails, the words of
 * the message or the topic serve.
 */
export const TitleSchema = z.object({ title: z.string(), purpose: z.string().default('') });

/** Discord's limit on a thread's name. */
export const THREAD_NAME_MAX = 100;
/** The first line posted in the thread: one sentence, not an essay. */
const PURPOSE_MAX = 200;

const INSTRUCTIONS = [
  'You name a new discussion thread in a team chat. Read the message (and the topic, if given) it starts from.',
  'Return {"title": "...", "purpose": "..."}: a title of at most 60 characters naming the topic (no quotes, no emoji, no @mentions),',
  'and one sentence saying what the thread is for (what should be discussed or decided there).',
].join('\n');

export async function threadTitle(deps: SideTaskDeps, ref: ChannelRef, o: { message: string; topic?: string }): Promise<{ title: string; purpose: string }> {
  const fallback = fallbackTitle(o);
  try {
    const input = [o.topic ? tagged('topic', o.topic) : '', tagged('message', o.message.slice(0, 4_000))].filter(Boolean).join('\n');
    const r = await runSideTask(deps, {
      ref,
      task: 'thread-title',
      instructions: INSTRUCTIONS,
      input,
      schema: TitleSchema,
      description: '{"title", "purpose"}',
      maxTokens: 200,
    });
    return { title: clean(r.title, THREAD_NAME_MAX) || fallback.title, purpose: clean(r.purpose, PURPOSE_MAX) || fallback.purpose };
  } catch (err) {
    deps.logger.warn({ err, channel: ref.kind === 'discord' ? ref.channelId : ref.name }, 'could not have the thread titled; using the message');
    return fallback;
  }
}

export function fallbackTitle(o: { message: string; topic?: string }): { title: string; purpose: string } {
  const base = clean(o.topic || o.message, THREAD_NAME_MAX) || 'Discussion';
  return { title: base, purpose: `Discuss: ${clean(o.topic || o.message, PURPOSE_MAX - 9) || 'the message above'}` };
}

/** One line, no mentions or markup that would ping or break a name, secrets out, within `max`. */
function clean(text: string, max: number): string {
  let t = redactSecrets(text)
    .replace(/<[@#][!&]?\d+>/g, '')
    .replace(/@(everyone|here)\b/g, '$1')
    .replace(/[`*_~|>#]/g, '');
  t = t
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["']|["']$/g, '');
  return t.length > max ? `${t.slice(0, max - 1).trimEnd()}…` : t;
}
