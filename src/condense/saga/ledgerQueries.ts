import { Ledger, LedgerEntry } from './ledgerSchema';

/** Questions answered from a ledger already read: what a thread's latest condensation was, and where the last one ended. */

/** The newest finished condensation of a thread (what a re-condensation supersedes). */
export function latestForThread(l: Ledger, threadId: string, exceptKey?: string): LedgerEntry | undefined {
  return Object.values(l.entries)
    .filter((e) => e.conversation.threadId === threadId && e.status === 'done' && !e.supersededBy && !e.byMember && e.key !== exceptKey)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
}

/** The id of the last message condensed in a conversation, for the automatic gate. */
export function lastCondensedMessageId(l: Ledger, threadId: string | undefined): string | undefined {
  const done = Object.values(l.entries)
    .filter((e) => e.status === 'done' && !e.byMember && e.conversation.threadId === threadId)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  return done[0]?.facts.lastMessageId;
}
