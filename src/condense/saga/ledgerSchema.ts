import { z } from 'zod';
import { CondensationDraft, CondensationFacts, PinOutcome } from '../condensation/types';

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

/**
 * Whether the post of a condensation made before posts carried Confirm, Reopen and Supersede was given
 * them (oldPostButtons.ts): 'added', 'had' (it carried components already), 'not-ours' or 'gone'
 * (skipped for good). Absent: not looked at yet, so a restart never edits a post twice.
 */
export const PostButtons = z.enum(['added', 'had', 'not-ours', 'gone']);
export type PostButtons = z.infer<typeof PostButtons>;

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
  /**
   * The draft was a member's (Supersede's form, Record as decision), not a discussion condensed: it
   * is no thread's latest condensation, and the messages it names were not condensed.
   */
  byMember: z.boolean().optional(),
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
  postButtons: PostButtons.optional(),
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
