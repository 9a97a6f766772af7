import type { ChannelRef } from '../../memory/paths';
import { ChannelStore } from '../../memory/store';
import { readLedger } from './ledgerFile';
import { Ledger, LedgerEntry } from './ledgerSchema';

/** A failed condensation is retried this many times in all, then left for a person. */
export const MAX_ATTEMPTS = 5;

export interface RetryableFailure {
  key: string;
  /** How it was started: an automatic retry must not post a "none" decision an explicit one would. */
  trigger: LedgerEntry['trigger'];
  conversation: LedgerEntry['conversation'];
  attempts: number;
  lastError?: string;
  /** The model already answered: a retry needs no model call (only the remaining steps). */
  hasDraft: boolean;
  updatedAt: string;
}

/**
 * Failed condensations worth another attempt (fewer than MAX_ATTEMPTS), oldest first, plus
 * running ones whose lease ran out (their process died).
 */
export function retryableFailures(l: Ledger, now: Date, maxAttempts = MAX_ATTEMPTS): RetryableFailure[] {
  return Object.values(l.entries)
    .filter(
      (e) =>
        (e.status === 'failed' && e.attempts < maxAttempts) ||
        (e.status === 'running' && e.leaseUntil !== undefined && Date.parse(e.leaseUntil) < now.getTime()),
    )
    .sort((a, b) => a.updatedAt.localeCompare(b.updatedAt))
    .map((e) => ({
      key: e.key,
      trigger: e.trigger,
      conversation: e.conversation,
      attempts: e.attempts,
      lastError: e.lastError,
      hasDraft: e.draft !== undefined,
      updatedAt: e.updatedAt,
    }));
}

export async function listRetryable(store: ChannelStore, ref: ChannelRef, now: Date, maxAttempts = MAX_ATTEMPTS): Promise<RetryableFailure[]> {
  return retryableFailures(await readLedger(store, ref), now, maxAttempts);
}
