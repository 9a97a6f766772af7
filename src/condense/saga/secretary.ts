import path from 'node:path';
import { refLabel } from '../../memory/paths';
import { redactSecrets } from '../../shared/secrets';
import { MalformedStateError } from '../../memory/storeErrors';
import { ModelError } from '../../llm/errors';
import type { SideTaskDeps } from '../../llm/sideTask';
import { decisionIdFor } from '../knowledge/contextData';
import { redactDraft } from './filing';
import { LEASE_MS, leaseHolderGone, thisProcess } from './leases';
import { LeaseHolder, LedgerEntry } from './ledgerSchema';
import { mutateLedger, mutateLedgerIn } from './ledgerFile';
import {
  ClaimedRun,
  CondenseStep,
  contextStep,
  DraftedRun,
  draftedRun,
  draftStep,
  ExclusiveStep,
  fileStep,
  historyStep,
  LedgerRecord,
  memoryStep,
  postedMessage,
  postStep,
} from './steps';
import { factsOf, humanMessages, ledgerKey } from '../condensation/transcript';
import type { CondensationDraft, CondenseTarget, Poster, TranscriptMessage } from '../condensation/types';

/** The points between steps where a test can inject a crash. */
export type FaultPoint = 'drafted' | 'posted' | 'filed' | 'context' | 'memory' | 'history';

export interface SecretaryOptions {
  deps: SideTaskDeps;
  /** Transcripts longer than this (characters) are summarized in chunks before condensing. */
  budgetChars?: number;
  /**
   * Called after each step's effect and BEFORE it is recorded in the ledger: the worst moment
   * for a crash. Tests throw from here; production passes nothing.
   */
  fault?: (point: FaultPoint) => void | Promise<void>;
  /** Progress lines for long runs (the CLI prints them on stderr). */
  onProgress?: (msg: string) => void;
}

export interface CondenseRequest {
  target: CondenseTarget;
  /** The whole conversation, oldest first; bot messages and injected blocks are stripped here. */
  messages: TranscriptMessage[];
  /** Absent in console/CLI mode: nothing is posted. */
  poster?: Poster;
  /**
   * A draft a member wrote (Supersede's form, Record as decision): the model is not asked, and the
   * rest of the path (post, pin, file, CONTEXT.md, MEMORY.md, HISTORY.md) is a condensation's.
   */
  draft?: CondensationDraft;
}

export type CondenseResult =
  | {
      status: 'done';
      key: string;
      decisionId: string;
      draft: CondensationDraft;
      body: string;
      /** File name inside the conversation's condensations folder. */
      file: string;
      filePath: string;
      post?: { messageId: string; url?: string; pin: string };
      /** Things to tell the channel once (e.g. pinning not allowed). */
      notices: string[];
      /** True when an earlier, interrupted run of the same discussion was completed. */
      resumed: boolean;
      /** Keys of earlier condensations of the same thread this one replaced. */
      replaced: string[];
    }
  | { status: 'already'; key: string; entry: LedgerEntry }
  | { status: 'in-progress'; key: string; leaseUntil?: string; holder?: LeaseHolder }
  | { status: 'empty' }
  | { status: 'failed'; key: string; error: string; userMessage: string; attempts: number };

const DEFAULT_BUDGET_CHARS = 40_000;

// Written beside the post step that says them; exported here too, where callers find the Secretary's other exports.
export { PIN_NOT_ALLOWED_NOTICE, PINS_FULL_NOTICE } from './steps';

/** A step as the runner sees it: its name, its fault point, and how its ledger entry shows it done. */
type NamedStep<R extends ClaimedRun> = {
  name: 'draft' | 'post' | 'file' | 'context' | 'memory' | 'history';
  faultPoint: FaultPoint;
  done: (entry: LedgerEntry) => boolean;
} & (
  | { exclusive: false; run: CondenseStep<R> }
  | {
      /**
       * The effect and its record in one exclusive section of the channel: the effect rewrites files
       * other writers of the channel (commands, memory upkeep, the audit) change under that lock, and no
       * one who takes the lock sees the effect without its record.
       */
      exclusive: true;
      run: ExclusiveStep<R>;
    }
);

/** The step whose answer the others are built from. */
const DRAFT_STEP: NamedStep<ClaimedRun> = { name: 'draft', faultPoint: 'drafted', exclusive: false, done: (e) => !!e.draft, run: draftStep };

/** Where the drafted condensation goes, in order. */
const DELIVERY_STEPS: NamedStep<DraftedRun>[] = [
  { name: 'post', faultPoint: 'posted', exclusive: false, done: (e) => !!e.steps.posted, run: postStep },
  { name: 'file', faultPoint: 'filed', exclusive: true, done: (e) => !!e.steps.filed, run: fileStep },
  { name: 'context', faultPoint: 'context', exclusive: true, done: (e) => !!e.steps.context, run: contextStep },
  { name: 'memory', faultPoint: 'memory', exclusive: false, done: (e) => !!e.steps.memory, run: memoryStep },
  { name: 'history', faultPoint: 'history', exclusive: true, done: (e) => !!e.steps.history, run: historyStep },
];

/**
 * The Secretary: turns a finished discussion into a condensation — posted and pinned, filed,
 * folded into CONTEXT.md, MEMORY.md and HISTORY.md — once per discussion. Transport-independent:
 * the Discord glue gathers messages and implements Poster; console/CLI runs pass no poster.
 *
 * Each step is idempotent on its own (it recognises its earlier effect on disk or in the channel)
 * and is recorded in the ledger entry when done, so a run interrupted anywhere is completed by
 * the next one without posting or filing twice.
 */
export class Secretary {
  private readonly budgetChars: number;

  constructor(private readonly opts: SecretaryOptions) {
    this.budgetChars = opts.budgetChars ?? DEFAULT_BUDGET_CHARS;
  }

  private get store() {
    return this.opts.deps.store;
  }
  private get now() {
    return this.opts.deps.clock();
  }

  async condense(req: CondenseRequest): Promise<CondenseResult> {
    try {
      return await this.condenseOnce(req);
    } catch (err) {
      if (!(err instanceof MalformedStateError)) throw err;
      // Nothing can be recorded (the ledger may be the broken file): say which file, change nothing.
      const key = ledgerKey(humanMessages(req.messages));
      return { status: 'failed', key, error: err.message, userMessage: `The condensation did not run: ${err.message}.`, attempts: 0 };
    }
  }

  private async condenseOnce(req: CondenseRequest): Promise<CondenseResult> {
    const { target } = req;
    const ref = target.ref;
    const human = humanMessages(req.messages);
    if (!human.length) return { status: 'empty' };
    const key = ledgerKey(human);
    const decisionId = decisionIdFor(key);
    const threadId = target.threadId ?? ref.threadId;
    const facts = factsOf(human, { channelName: target.channelName, threadName: target.threadName });
    const p = this.store.paths(ref);

    const claim = await this.claim(target, key, decisionId, threadId, facts, req.draft);
    if (claim.kind === 'already') return { status: 'already', key, entry: claim.entry };
    if (claim.kind === 'busy') return { status: 'in-progress', key, leaseUntil: claim.leaseUntil, holder: claim.holder };

    const run: ClaimedRun = {
      deps: this.opts.deps,
      store: this.store,
      ref,
      p,
      key,
      decisionId,
      threadId,
      target,
      human,
      poster: req.poster,
      budgetChars: this.budgetChars,
      onProgress: this.opts.onProgress,
      entry: claim.entry,
      notices: [],
    };
    try {
      await this.runStep(DRAFT_STEP, run);
      const drafted = await draftedRun(run);
      for (const step of DELIVERY_STEPS) await this.runStep(step, drafted);
      return await this.finish(drafted, claim.resumed);
    } catch (err) {
      return this.recordFailure(run, err);
    }
  }

  /** Claims the key under the channel lock: two reactions at once must not both condense. */
  private claim(target: CondenseTarget, key: string, decisionId: string, threadId: string | undefined, facts: LedgerEntry['facts'], given?: CondensationDraft) {
    const ref = target.ref;
    return mutateLedger(this.store, ref, (l) => {
      const nowIso = this.now.toISOString();
      l.firstRunAt ??= nowIso;
      const e = l.entries[key];
      if (e?.status === 'done') return { kind: 'already' as const, entry: e };
      // A live lease blocks, unless its holder crashed on this host (kill -9 leaves it behind).
      if (e?.status === 'running' && e.leaseUntil && Date.parse(e.leaseUntil) > this.now.getTime() && !leaseHolderGone(e.leaseHolder)) {
        return { kind: 'busy' as const, leaseUntil: e.leaseUntil, holder: e.leaseHolder };
      }
      const entry: LedgerEntry = e ?? {
        key,
        status: 'running',
        trigger: target.trigger,
        conversation: {
          label: refLabel(ref),
          threadId,
          privateThread: ref.privateThread || undefined,
          channelName: target.channelName,
          threadName: target.threadName,
        },
        facts,
        decisionId,
        // A member's draft is recorded as the draft step's answer would be: that step is then done.
        ...(given ? { draft: redactDraft(given), replacesKeys: [], byMember: true } : {}),
        steps: {},
        attempts: 0,
        createdAt: nowIso,
        updatedAt: nowIso,
      };
      entry.status = 'running';
      entry.attempts += 1;
      entry.updatedAt = nowIso;
      entry.leaseUntil = new Date(this.now.getTime() + LEASE_MS).toISOString();
      entry.leaseHolder = thisProcess();
      l.entries[key] = entry;
      return { kind: 'go' as const, resumed: e !== undefined, entry: structuredClone(entry) };
    });
  }

  /** Runs a step unless the entry records it, then records it and keeps the entry as recorded. */
  private async runStep<R extends ClaimedRun>(step: NamedStep<R>, run: R): Promise<void> {
    if (step.done(run.entry)) return;
    const crashPoint = async () => {
      await this.opts.fault?.(step.faultPoint);
    };
    if (!step.exclusive) {
      const record = await step.run(run, crashPoint);
      run.entry = await this.record(run, record);
      return;
    }
    run.entry = await this.store.exclusive(run.p, async (tx) => {
      const record = await step.run(run, tx, crashPoint);
      // updatedAt is left as the last unlocked record stamped it: retries are ordered by it, and
      // these records have never moved it.
      return mutateLedgerIn(this.store, tx, (l) => {
        const e = l.entries[run.key];
        record(e, l);
        return structuredClone(e);
      });
    });
  }

  /** Writes a record into the run's entry (under the channel lock) and returns the entry as written. */
  private record(run: ClaimedRun, record: LedgerRecord): Promise<LedgerEntry> {
    return mutateLedger(this.store, run.ref, (l) => {
      const e = l.entries[run.key];
      record(e, l);
      e.updatedAt = this.now.toISOString();
      return structuredClone(e);
    });
  }

  private async finish(run: DraftedRun, resumed: boolean): Promise<CondenseResult> {
    // Done: the thread's earlier condensation is now replaced.
    const entry = await this.record(run, (e, l) => {
      e.status = 'done';
      e.leaseUntil = undefined;
      e.leaseHolder = undefined;
      e.lastError = undefined;
      for (const k of e.replacesKeys ?? []) if (l.entries[k]) l.entries[k].supersededBy = run.key;
    });
    const fileName = entry.steps.filed as string;
    this.opts.deps.logger.info({ key: run.key.slice(0, 12), file: fileName, conversation: refLabel(run.ref) }, 'condensation done');
    return {
      status: 'done',
      key: run.key,
      decisionId: run.decisionId,
      draft: run.draft,
      body: run.body,
      file: fileName,
      filePath: path.join(run.p.condensations, fileName),
      post: postedMessage(entry),
      notices: run.notices,
      resumed,
      replaced: entry.replacesKeys ?? [],
    };
  }

  private async recordFailure(run: ClaimedRun, err: unknown): Promise<CondenseResult> {
    const { key } = run;
    const message = redactSecrets(err instanceof Error ? err.message : String(err));
    const failed = await mutateLedger(this.store, run.ref, (l) => {
      const e = l.entries[key];
      e.status = 'failed';
      e.lastError = message;
      e.leaseUntil = undefined;
      e.leaseHolder = undefined;
      e.updatedAt = this.now.toISOString();
      return e.attempts;
    }).catch((recordErr: unknown) => {
      // The ledger itself may be the broken file: then the first error is the one to report.
      throw err instanceof MalformedStateError ? err : recordErr;
    });
    this.opts.deps.logger.warn({ key: key.slice(0, 12), err: message, attempts: failed }, 'condensation failed; recorded for a retry');
    const userMessage =
      err instanceof ModelError
        ? `The condensation failed: ${err.userMessage()}`
        : err instanceof MalformedStateError
          ? `The condensation did not run: ${err.message}.`
          : 'The condensation failed; it is recorded and will be retried.';
    return { status: 'failed', key, error: message, userMessage, attempts: failed };
  }
}
