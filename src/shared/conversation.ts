/**
 * The shape of a stored model conversation and its token estimate: plain data every layer may use
 * (prompt assembly reads it, upkeep compacts it, the chat engine stores it).
 */
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

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/g;

/** A cheap token estimate: about four characters a token for English, one for CJK. */
export function estimateTokens(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  return Math.ceil((text.length - cjk) / 4) + cjk;
}

export function conversationTokens(state: ConversationState): number {
  return estimateTokens(state.summary ?? '') + state.turns.reduce((n, t) => n + estimateTokens(t.content), 0);
}
