import { z } from 'zod';

/**
 * The shape of a stored model conversation and its token estimate: plain data every layer may use
 * (prompt assembly reads it, upkeep compacts it, the chat engine stores it).
 */
/**
 * The model conversation since the last compaction: append-only, so the prompt prefix only grows.
 * Kept in the conversation's `.minutes/conversation.json` and reloaded after a restart. Recall
 * blocks never enter it (they ride on the newest message for one turn only). Each shape is a zod
 * schema and the type it accepts, under one name; objects are loose, so keys this version does
 * not know survive a rewrite.
 */
export const Turn = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  /** ISO time the turn was completed. */
  at: z.string(),
  /** Source message ids (user turns), so a deleted message can be dropped from upkeep. */
  ids: z.array(z.string()).optional(),
  /** One rendered line per source message, in the order of `ids`; content is their join. */
  parts: z.array(z.string()).optional(),
});
export type Turn = z.infer<typeof Turn>;

export const ConversationState = z.looseObject({
  version: z.literal(1),
  summary: z.string().optional(),
  turns: z.array(Turn),
  /** How many turns were compacted away in total: upkeep cursors count from here. */
  compactedTurns: z.number(),
});
export type ConversationState = z.infer<typeof ConversationState>;

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
