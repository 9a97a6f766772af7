import { silentLogger } from '../../src/log/logger';
import { createModelClient } from '../../src/llm/provider';
import type { ModelClient } from '../../src/llm/types';
import { ChannelStore } from '../../src/memory/store';
import type { CondensationDraft, Poster, PinOutcome, TranscriptMessage } from '../../src/condense/condensation/types';
import type { ContextData } from '../../src/condense/knowledge/contextData';
import { foldCondensation, type FoldInput } from '../../src/condense/knowledge/fold';
import type { SideTaskDeps } from '../../src/llm/sideTask';
import type { FakeModelServer } from '../fakes/model/server';
import type { FakeRequest } from '../fakes/model/types';
import { condensationMarkIn } from '../../src/shared/markers';

/**
 * A scripted Secretary model: reads the transcript it is shown and answers like a careful model.
 * `decision: X` in a message is the decision (the last one wins); `constraint: X` a constraint;
 * `todo: X` an action item. A decision naming a word of a current key decision's topic supersedes it.
 */
export function secretaryModel(state: { replies?: string[]; inputs: string[] } = { inputs: [] }) {
  return (req: FakeRequest): string => {
    const input = req.messages[0].text;
    state.inputs.push(input);
    if (/summarize one part/.test(req.system)) {
      const lines = input.split('\n').filter((l) => /decision:|constraint:|todo:/i.test(l));
      return JSON.stringify({ summary: lines.join('\n') || 'chit-chat' });
    }
    const said = (label: string) =>
      [...input.matchAll(new RegExp(`^\\[[^\\]]+\\] [^:]+: ${label}: (.*)$`, 'gim'))]
        .map((m) => m[1])
        .concat([...input.matchAll(new RegExp(`^(?!\\[)[^\\n]*?\\b${label}: (.*)$`, 'gim'))].map((m) => m[1]));
    const decisions = said('decision');
    const decision = decisions.length ? decisions[decisions.length - 1] : 'none';
    const topicWord = /\b(database|deploy|material|mirror)\b/i.exec(decision)?.[1]?.toLowerCase();
    const current = [...input.matchAll(/^- (d-[0-9a-f]{10}) \[[^\]]+\] ([^:]+): (.*)$/gm)].map((m) => ({ id: m[1], topic: m[2], text: m[3] }));
    const supersedes = topicWord ? current.filter((c) => c.text.toLowerCase().includes(topicWord)).map((c) => c.id) : [];
    return JSON.stringify({
      topic: topicWord ? `${topicWord[0].toUpperCase()}${topicWord.slice(1)} choice` : 'Open discussion',
      context: 'The team discussed options.',
      decision,
      rationale: 'It was the simplest option that meets the constraints.',
      action_items: said('todo'),
      supersedes: [...supersedes, 'd-0000000000'],
      constraints: said('constraint'),
      current_state: decision === 'none' ? '' : `Going with: ${decision}`,
      participants: ['the model must not be trusted for this'],
      extra_field: true,
    });
  };
}

export async function sideDeps(
  root: string,
  fake: FakeModelServer,
  clock: () => Date,
): Promise<{ deps: SideTaskDeps; model: ModelClient; store: ChannelStore }> {
  const logger = silentLogger();
  const model = await createModelClient({
    logger,
    env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL },
    limits: { requestsPerMinute: 'unlimited' },
    retry: { maxAttempts: 1 },
  } as Parameters<typeof createModelClient>[0]);
  const store = new ChannelStore({ root, clock, logger });
  return { deps: { model, store, logger, clock }, model, store };
}

/** A Poster that records what it did; `failPostOnce` simulates a crash right after Discord accepted the post. */
export class FakePoster implements Poster {
  posts: { messageId: string; content: string }[] = [];
  pins: string[] = [];
  pinOutcome: PinOutcome = 'pinned';
  private seq = 0;
  async findByMarker(marker: string): Promise<{ messageId: string } | null> {
    const p = this.posts.find((x) => condensationMarkIn(x.content) === marker);
    return p ? { messageId: p.messageId } : null;
  }
  async post(content: string): Promise<{ messageId: string; url: string }> {
    const messageId = String(990000000000000000n + BigInt(++this.seq));
    this.posts.push({ messageId, content });
    return { messageId, url: `https://discord.com/channels/1/2/${messageId}` };
  }
  async pin(messageId: string): Promise<PinOutcome> {
    if (this.pinOutcome === 'pinned') this.pins.push(messageId);
    return this.pinOutcome;
  }
}

let idSeq = 100000000000000000n;
export function msgs(lines: [author: string, text: string][], opts: { start?: string; stepMs?: number; bot?: string } = {}): TranscriptMessage[] {
  let t = Date.parse(opts.start ?? '2026-11-20T10:00:00Z');
  return lines.map(([author, content]) => {
    t += opts.stepMs ?? 60_000;
    idSeq += 1n;
    const isBot = author === (opts.bot ?? 'minutes');
    return { id: String(idSeq), authorId: `u-${author}`, authorName: author, at: new Date(t), content, isBot };
  });
}

/** A context.json with nothing folded into it yet. */
export const EMPTY_CONTEXT: ContextData = { version: 1, decisions: [], constraints: [] };

/** Drafts with this topic and decision unless a test says otherwise. */
export function draftMaker(base: Pick<CondensationDraft, 'topic' | 'decision'>): (over?: Partial<CondensationDraft>) => CondensationDraft {
  return (over = {}) => ({ ...base, context: '', rationale: '', actionItems: [], supersedes: [], constraints: [], currentState: '', ...over });
}

/** foldCondensation with one discussion's facts (#ops, al and bo, two messages) and `draft()` unless given. */
export function folder(draft: () => CondensationDraft): (prev: ContextData, o?: Partial<FoldInput> & { date?: string }) => ContextData {
  return (prev, o = {}) =>
    foldCondensation(prev, {
      decisionId: 'd-1',
      ledgerKey: 'k1',
      draft: draft(),
      supersedes: [],
      ...o,
      facts: { date: o.date ?? '2026-11-10', channelName: 'ops', participants: ['al', 'bo'], firstMessageId: '1', lastMessageId: '2', messageCount: 2 },
    });
}
