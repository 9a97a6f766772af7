import path from 'node:path';
import { redactSecrets } from '../memory/secrets';
import type { ChannelStore } from '../memory/store';
import type { ChannelRef } from '../memory/paths';

/**
 * The model conversation since the last compaction: append-only, so the prompt prefix only grows.
 * Kept in the conversation's `.minutes/conversation.json` and reloaded after a restart. Recall
 * blocks never enter it (they ride on the newest message for one turn only).
 */
export interface Turn {
  role: 'user' | 'assistant';
  content: string;
  /** ISO time the turn was completed. */
  at: string;
  /** Source message ids (user turns), so a deleted message can be dropped from upkeep. */
  ids?: string[];
  /** One rendered line per source message, in the order of `ids`; content is their join. */
  parts?: string[];
}

export interface ConversationState {
  version: 1;
  summary?: string;
  turns: Turn[];
  /** How many turns were compacted away in total: upkeep cursors count from here. */
  compactedTurns: number;
}

export function emptyConversation(): ConversationState {
  return { version: 1, turns: [], compactedTurns: 0 };
}

export function conversationFile(store: ChannelStore, ref: ChannelRef): string {
  return path.join(store.paths(ref).stateDir, 'conversation.json');
}

export async function loadConversation(store: ChannelStore, ref: ChannelRef): Promise<ConversationState> {
  const state = await store.readState<ConversationState>(conversationFile(store, ref));
  if (!state || state.version !== 1 || !Array.isArray(state.turns)) return emptyConversation();
  return { ...state, compactedTurns: state.compactedTurns ?? 0 };
}

/** A human message as the transport hands it over. */
export interface InboundMessage {
  id: string;
  authorName: string;
  content: string;
  at: Date;
  /**
   * Whether the message spoke to the bot (a mention, a reply, an always-on channel). Only such
   * messages may ask it to remember or forget; context it merely overheard may not. Default true.
   */
  addressed?: boolean;
  /** Whether its author may make the bot forget (the admin rule of /memory forget). Default true. */
  mayForget?: boolean;
}

/**
 * Every human message since the bot's last reply becomes one user turn. The time is part of the
 * turn text, fixed when the turn is written, so it never changes the cached prefix later.
 */
/** Secrets are redacted here, so they reach neither the model nor the stored conversation. */
export function renderUserPart(m: InboundMessage): string {
  return `[${m.at.toISOString().slice(0, 16).replace('T', ' ')} UTC] ${m.authorName}: ${redactSecrets(m.content)}`;
}

export function mergeUserTurn(messages: InboundMessage[]): string {
  return messages.map(renderUserPart).join('\n');
}

/**
 * Pure: drops a deleted message from the stored turns, so it reaches no later prompt, upkeep or
 * condensation. Returns null when the message is not in the conversation.
 */
export function withoutMessage(state: ConversationState, messageId: string): ConversationState | null {
  let hit = false;
  const turns = state.turns.map((t) => {
    const i = t.ids?.indexOf(messageId) ?? -1;
    if (i < 0 || !t.parts) return t;
    hit = true;
    const ids = t.ids!.filter((_, k) => k !== i);
    const parts = t.parts.filter((_, k) => k !== i);
    return { ...t, ids, parts, content: parts.length ? parts.join('\n') : '(message deleted)' };
  });
  return hit ? { ...state, turns } : null;
}

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/g;

/** A cheap token estimate: about four characters a token for English, one for CJK. */
export function estimateTokens(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  return Math.ceil((text.length - cjk) / 4) + cjk;
}

export function conversationTokens(state: ConversationState): number {
  return estimateTokens(state.summary ?? '') + state.turns.reduce((n, t) => n + estimateTokens(t.content), 0);
}
