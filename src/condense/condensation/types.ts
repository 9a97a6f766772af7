import { z } from 'zod';
import type { ChannelRef } from '../../memory/paths';

/** One message of the discussion being condensed, as the transport gathered it (oldest first). */
export interface TranscriptMessage {
  id: string;
  authorId: string;
  authorName: string;
  at: Date;
  content: string;
  /** Written by a bot (ours or another): never part of the key, the transcript or the participants. */
  isBot: boolean;
}

/** What is being condensed and where it lives. */
export interface CondenseTarget {
  /** The conversation: a thread ref (with threadId, privateThread) or a channel ref. */
  ref: ChannelRef;
  guildId?: string;
  /** Human-readable names go into the rendering and frontmatter only, never into paths. */
  channelName: string;
  threadName?: string;
  threadId?: string;
  /** Jump URL builder for a message id (Discord); optional. */
  link?: (messageId: string) => string;
  trigger: 'explicit' | 'auto';
  /** `/condense <topic>`: a hint for the model, and the topic when the model gives none. */
  topicHint?: string;
}

export const PinOutcome = z.enum(['pinned', 'not-allowed', 'full-none-ours', 'already']);
export type PinOutcome = z.infer<typeof PinOutcome>;

/**
 * The transport's side of posting. The Discord glue implements it (posting in the parent channel,
 * or inside a private thread or forum post); console and CLI runs pass none and nothing is posted.
 */
export interface Poster {
  /** Finds an earlier post of ours carrying this marker (a resumed run after a crash). */
  findByMarker(marker: string): Promise<{ messageId: string } | null>;
  /** `decisionId`: the post records that decision (not a discussion without one): members may confirm, reopen or supersede it there. */
  post(content: string, o?: { decisionId?: string }): Promise<{ messageId: string; url?: string }>;
  pin(messageId: string): Promise<PinOutcome>;
}

/**
 * What the model returns, after validation and clean-up; kept in the ledger, so a resumed run never
 * asks again. (The zod schemas of stored shapes share the type's name and are loose: keys this
 * version does not know survive a rewrite of the ledger.)
 */
export const CondensationDraft = z.looseObject({
  topic: z.string(),
  context: z.string(),
  /** 'none' when the discussion reached no conclusion. */
  decision: z.string(),
  rationale: z.string(),
  actionItems: z.array(z.string()),
  /** Ids of current Key Decisions the new one replaces (only ids that exist). */
  supersedes: z.array(z.string()),
  constraints: z.array(z.string()),
  currentState: z.string(),
  /** Questions the discussion left open, as written ("al: which region?"). Absent in drafts made before they were tracked. */
  openQuestions: z.array(z.string()).optional(),
  /** Open questions (ids it was shown) this discussion answered. */
  answeredQuestions: z.array(z.looseObject({ id: z.string(), answer: z.string() })).optional(),
  /** Procedures the discussion agreed on; a name already filed changes that playbook. */
  playbooks: z.array(z.looseObject({ name: z.string(), steps: z.array(z.string()) })).optional(),
});
export type CondensationDraft = z.infer<typeof CondensationDraft>;

/** Facts from the messages, never from the model (kept in the ledger). */
export const CondensationFacts = z.looseObject({
  /** YYYY-MM-DD of the last human message: the day the discussion concluded. */
  date: z.string(),
  channelName: z.string(),
  threadName: z.string().optional(),
  participants: z.array(z.string()),
  /**
   * The authors known by a Discord user id, with the name each went by: an action item's owner or a
   * question's asker named as one of them is recorded by id (actionItems.ts). Absent when none is.
   */
  authors: z.array(z.looseObject({ id: z.string(), name: z.string() })).optional(),
  firstMessageId: z.string(),
  lastMessageId: z.string(),
  messageCount: z.number(),
});
export type CondensationFacts = z.infer<typeof CondensationFacts>;
