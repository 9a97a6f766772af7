import os from 'node:os';
import { z } from 'zod';
import type { ChannelRef } from '../memory/paths';
import { ChannelStore } from '../memory/store';
import { MalformedStateError } from '../memory/storeErrors';
import { CondensationDraft, CondensationFacts, PinOutcome } from './types';

/**
 * The Secretary's ledger: one entry per condensed discussion, keyed by the hash of its human
 * messages. It makes every step idempotent (each records itself here once done), records failures
 * for a later retry, and remembers what each thread's latest condensation was. Its shapes are zod
 * schemas that share their type's name; objects are loose, so keys this version does not know
 * survive a rewrite.
 */
export const LedgerStatus = z.enum(['running', 'done', 'failed']);
export type LedgerStatus = z.infer<typeof LedgerStatus>;

export const LedgerSteps = z.looseObject({
  /** 'skipped': no poster (console/CLI) or an automatic condensation with no decision. */
  posted: z.union([z.looseObject({ messageId: z.string(), url: z.string().optional(), pin: PinOutcome }), z.literal('skipped')]).optional(),
  filed: z.string().optional(),
  context: z.enum(['done', 'skipped']).optional(),
  memory: z.looseObject({ decisionMemoryId: z.string().optional(), constraintMemoryIds: z.array(z.string()) }).optional(),
  history: z.literal('done').optional(),
});
export type LedgerSteps = z.infer<typeof LedgerSteps>;

/** Who holds a lease (also the console's session lock): a holder on this host whose pid is gone crashed, and is taken over. */
export const LeaseHolder = z.looseObject({ host: z.string(), pid: z.number() });
export type LeaseHolder = z.infer<typeof LeaseHolder>;

export const LedgerEntry = z.looseObject({
  key: z.string(),
  status: LedgerStatus,
  trigger: z.enum(['explicit', 'auto']),
  /** Conversation label (refLabel) and ids, so a retry knows where to gather from. */
  conversation: z.looseObject({
    label: z.string(),
    threadId: z.string().optional(),
    privateThread: z.boolean().optional(),
    channelName: z.string(),
    threadName: z.string().optional(),
  }),
  facts: CondensationFacts,
  decisionId: z.string(),
  /** The model's answer, kept so a resumed run never asks the model again. */
  draft: CondensationDraft.optional(),
  /** Condensations of the same thread this one replaces (their keys). */
  replacesKeys: z.array(z.string()).optional(),
  steps: LedgerSteps,
  attempts: z.number(),
  lastError: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** A running entry older than this is taken to belong to a crashed process. */
  leaseUntil: z.string().optional(),
  /** Who holds the lease: a holder on this host whose pid is gone crashed, and is taken over. */
  leaseHolder: LeaseHolder.optional(),
  supersededBy: z.string().optional(),
});
export type LedgerEntry = z.infer<typeof LedgerEntry>;

export const Ledger = z.looseObject({
  version: z.literal(1),
  /** When the Secretary first ran in this channel: automatic triggers ignore older archives. */
  firstRunAt: z.string().optional(),
  /** Pinning was refused once and the channel was told; it is said once, not on every post. */
  pinNotAllowedNoticeAt: z.string().optional(),
  entries: z.record(z.string(), LedgerEntry),
});
export type Ledger = z.infer<typeof Ledger>;

export const EMPTY_LEDGER: Ledger = { version: 1, entries: {} };

export function thisProcess(): LeaseHolder {
  return { host: os.hostname(), pid: process.pid };
}

/**
 * Whether a lease's holder is known to be dead: same host, not this process, and no process with
 * its pid (kill 0 answers ESRCH). A holder on another host, or one we cannot check, is alive.
 */
export function leaseHolderGone(holder: LeaseHolder | undefined): boolean {
  if (!holder || holder.host !== os.hostname() || holder.pid === process.pid || !Number.isInteger(holder.pid) || holder.pid <= 0) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** A failed condensation is retried this many times in all, then left for a person. */
export const MAX_ATTEMPTS = 5;
/** How long a running condensation holds its key against a second run. */
export const LEASE_MS = 10 * 60_000;

/** Strict: a ledger that does not parse is refused, not read as empty (that would redo every condensation). */
export async function readLedger(store: ChannelStore, ref: ChannelRef): Promise<Ledger> {
  const l = await store.readState(store.paths(ref).ledger, Ledger, { strict: true });
  return l ?? { ...EMPTY_LEDGER, entries: {} };
}

/**
 * Read-modify-write of the ledger. Call it only inside `store.exclusive` for this channel: two
 * condensations of one channel must not lose each other's entries.
 */
export async function mutateLedgerLocked<T>(store: ChannelStore, ref: ChannelRef, fn: (l: Ledger) => T): Promise<T> {
  const p = store.paths(ref);
  const l = await readLedger(store, ref);
  const out = fn(l);
  await store.writeStateLocked(p, p.ledger, l);
  return out;
}

export async function mutateLedger<T>(store: ChannelStore, ref: ChannelRef, fn: (l: Ledger) => T): Promise<T> {
  return store.exclusive(store.paths(ref), () => mutateLedgerLocked(store, ref, fn));
}

/**
 * For loops over every channel: a channel whose state file does not parse or has the wrong shape
 * (readState logged which file and how to fix it) is skipped, so one stray comma does not stop the
 * others' work.
 */
export async function skipIfMalformed<T>(work: () => Promise<T>, skipped: T): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof MalformedStateError) return skipped;
    throw err;
  }
}

/** The newest finished condensation of a thread (what a re-condensation supersedes). */
export function latestForThread(l: Ledger, threadId: string, exceptKey?: string): LedgerEntry | undefined {
  return Object.values(l.entries)
    .filter((e) => e.conversation.threadId === threadId && e.status === 'done' && !e.supersededBy && e.key !== exceptKey)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
}

/** The id of the last message condensed in a conversation, for the automatic gate. */
export function lastCondensedMessageId(l: Ledger, threadId: string | undefined): string | undefined {
  const done = Object.values(l.entries)
    .filter((e) => e.status === 'done' && e.conversation.threadId === threadId)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  return done[0]?.facts.lastMessageId;
}

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

/**
 * Records when the Secretary first saw this channel (the bot calls it on startup and on its first
 * message there) and returns it: automatic triggers ignore threads archived before that moment.
 */
export async function ensureFirstRun(store: ChannelStore, ref: ChannelRef, now: Date): Promise<Date> {
  const l = await readLedger(store, ref);
  if (l.firstRunAt) return new Date(l.firstRunAt);
  const at = await mutateLedger(store, ref, (x) => (x.firstRunAt ??= now.toISOString()));
  return new Date(at);
}

/**
 * At start-up no condensation of this process is running, so a 'running' entry is one a crashed
 * or killed process left behind: release its lease so the next request or retry resumes it now
 * rather than after the lease runs out. (One bot process owns a channel folder.)
 */
export async function releaseLeases(store: ChannelStore, ref: ChannelRef): Promise<number> {
  const l = await readLedger(store, ref);
  if (!Object.values(l.entries).some((e) => e.status === 'running' && e.leaseUntil && Date.parse(e.leaseUntil) > 0)) return 0;
  return mutateLedger(store, ref, (x) => {
    let n = 0;
    for (const e of Object.values(x.entries)) {
      if (e.status === 'running' && e.leaseUntil && Date.parse(e.leaseUntil) > 0) {
        // Expired, not removed: an expired lease is what marks a run as interrupted and retryable.
        e.leaseUntil = new Date(0).toISOString();
        n++;
      }
    }
    return n;
  });
}
