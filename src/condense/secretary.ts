import path from 'node:path';
import { renderHistoryBlock } from '../memory/history';
import { ChannelPaths, ChannelRef, refLabel } from '../memory/paths';
import { redactSecrets } from '../shared/secrets';
import { MalformedStateError } from '../memory/storeErrors';
import { ModelError } from '../llm/errors';
import type { SideTaskDeps } from '../upkeep/sideTask';
import { ContextData, currentDecisions, activeConstraints, decisionIdFor, EMPTY_CONTEXT } from './contextDoc';
import { writeContextFiles } from './contextFiles';
import { draftCondensation } from './draft';
import { foldCondensation } from './fold';
import {
  contextFile,
  latestForThread,
  LEASE_MS,
  LeaseHolder,
  leaseHolderGone,
  Ledger,
  LedgerEntry,
  mutateLedger,
  mutateLedgerLocked,
  readLedger,
  thisProcess,
} from './ledger';
import { condensationMemoryStep } from './memoryStep';
import { fileCondensation, historyBody, redactDraft } from './filing';
import { droppedNow } from './actionItems';
import { markerFor, renderCondensation, renderPost, SupersededRef } from './render';
import { factsOf, humanMessages, ledgerKey } from './transcript';
import type { CondensationDraft, CondenseTarget, Poster, TranscriptMessage } from './types';

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

export const PIN_NOT_ALLOWED_NOTICE = "I can't pin messages here (missing the Pin Messages permission), so condensations are posted without pinning.";
export const PINS_FULL_NOTICE = "This channel's pins are full and none of them are my condensations, so I posted this one without pinning.";

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

    // Claim the key under the channel lock: two reactions at once must not both condense.
    const claim = await mutateLedger(this.store, ref, (l) => {
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
    if (claim.kind === 'already') return { status: 'already', key, entry: claim.entry };
    if (claim.kind === 'busy') return { status: 'in-progress', key, leaseUntil: claim.leaseUntil, holder: claim.holder };

    let entry = claim.entry;
    const notices: string[] = [];
    const record = (fn: (e: LedgerEntry, l: Ledger) => void, locked = false) => {
      const apply = (l: Ledger) => {
        const e = l.entries[key];
        fn(e, l);
        e.updatedAt = this.now.toISOString();
        return structuredClone(e);
      };
      return locked ? mutateLedgerLocked(this.store, ref, apply) : mutateLedger(this.store, ref, apply);
    };

    try {
      // 1. The model's part (skipped when a previous attempt already got an answer).
      if (!entry.draft) {
        const ctx = await this.readContext(p, ref);
        const raw = await draftCondensation(this.opts.deps, {
          ref,
          channelName: target.channelName,
          threadName: target.threadName,
          topicHint: target.topicHint,
          human,
          currentDecisions: currentDecisions(ctx).map((d) => ({ id: d.id, date: d.date, topic: d.topic, text: d.text })),
          activeConstraints: activeConstraints(ctx).map((c) => c.text),
          budgetChars: this.budgetChars,
          onProgress: this.opts.onProgress,
        });
        const draft = redactDraft(raw);
        await this.opts.fault?.('drafted');
        entry = await mutateLedger(this.store, ref, (l) => {
          const e = l.entries[key];
          e.draft = draft;
          // Same thread condensed again (it grew): the new condensation replaces the previous one.
          const prev = threadId ? latestForThread(l, threadId, key) : undefined;
          e.replacesKeys = prev ? [prev.key] : [];
          e.updatedAt = this.now.toISOString();
          return structuredClone(e);
        });
      }
      const draft = entry.draft as CondensationDraft;
      const ledgerNow = await readLedger(this.store, ref);
      const replacedIds = (entry.replacesKeys ?? []).map((k) => ledgerNow.entries[k]?.decisionId).filter((x): x is string => !!x);
      const supersedes = [...new Set([...draft.supersedes, ...replacedIds])].filter((id) => id !== decisionId);
      const ctxForRefs = await this.readContext(p, ref);
      const supRefs: SupersededRef[] = supersedes
        .map((id) => ctxForRefs.decisions.find((d) => d.id === id))
        .filter((d): d is NonNullable<typeof d> => !!d && d.kind === 'decision')
        .map((d) => ({ id: d.id, date: d.date, text: d.text }));
      const renderIn = { draft, facts: entry.facts, supersedes: supRefs };
      const body = renderCondensation(renderIn);

      // 2. Post and pin.
      if (!entry.steps.posted) {
        const skip = !req.poster || (target.trigger === 'auto' && draft.decision === 'none');
        if (skip) {
          entry = await record((e) => {
            e.steps.posted = 'skipped';
          });
        } else {
          const poster = req.poster as Poster;
          const marker = markerFor(key);
          // A run that died after posting left its post behind: find it instead of posting again.
          const found = await poster.findByMarker(marker);
          const msg = found ?? (await poster.post(renderPost(renderIn, key)));
          await this.opts.fault?.('posted');
          const pin = await poster.pin(msg.messageId);
          entry = await record((e, l) => {
            e.steps.posted = { messageId: msg.messageId, url: (msg as { url?: string }).url, pin };
            if (pin === 'not-allowed' && !l.pinNotAllowedNoticeAt) {
              l.pinNotAllowedNoticeAt = this.now.toISOString();
              notices.push(PIN_NOT_ALLOWED_NOTICE);
            }
            if (pin === 'full-none-ours') notices.push(PINS_FULL_NOTICE);
          });
        }
      }
      const posted = typeof entry.steps.posted === 'object' ? entry.steps.posted : undefined;

      // 3. The condensation file (and superseded_by on the files it replaces).
      if (!entry.steps.filed) {
        const file = await this.store.exclusive(p, async () => {
          const name = await fileCondensation(this.store, { p, ref, key, target, entry, draft, body, supersedes, ctx: ctxForRefs, posted });
          await this.opts.fault?.('filed');
          await mutateLedgerLocked(this.store, ref, (l) => {
            l.entries[key].steps.filed = name;
          });
          return name;
        });
        entry.steps.filed = file;
      }
      const fileName = entry.steps.filed as string;

      // 4. context.json, and CONTEXT.md rendered from it (never for a private thread: that file is the parent's).
      if (!entry.steps.context) {
        await this.store.exclusive(p, async () => {
          const prev = await this.readContext(p, ref);
          const next = foldCondensation(prev, { decisionId, ledgerKey: key, draft, facts: entry.facts, file: fileName, threadId, supersedes });
          const dropped = droppedNow(prev, next);
          if (dropped.length) notices.push(`Closed the open action items of the replaced decision: ${dropped.map((i) => `${i.id} (${i.text})`).join('; ')}.`);
          if (!ref.privateThread) {
            // CONTEXT.md first: a crash before context.json leaves a file whose hash still matches.
            await writeContextFiles(this.store, p, prev, next);
          }
          await this.store.writeStateLocked(p, contextFile(p, ref), next);
          await this.opts.fault?.('context');
          await mutateLedgerLocked(this.store, ref, (l) => {
            l.entries[key].steps.context = ref.privateThread ? 'skipped' : 'done';
          });
        });
        entry.steps.context = ref.privateThread ? 'skipped' : 'done';
      }

      // 5. MEMORY.md by operations.
      if (!entry.steps.memory) {
        const mem = await condensationMemoryStep(
          { store: this.store, now: this.now, readContext: () => this.readContext(p, ref), contextFile: contextFile(p, ref) },
          p,
          ref,
          { decisionId, draft, supersedes, fileName },
        );
        await this.opts.fault?.('memory');
        entry = await record((e) => {
          e.steps.memory = mem;
        });
      }

      // 6. HISTORY.md: one block, recognised by its marker on a resumed run.
      if (!entry.steps.history) {
        const marker = markerFor(key);
        await this.store.exclusive(p, async () => {
          await this.store.updateLocked(p, 'HISTORY.md', (cur) => {
            if (cur.includes(marker)) return cur;
            const block = renderHistoryBlock({
              at: new Date(`${entry.facts.date}T00:00:00Z`),
              title: `Condensation: ${draft.topic}`,
              body: historyBody(draft, entry, fileName, marker),
            });
            return `${cur.replace(/\s*$/, '')}\n\n${block}`;
          });
          await this.opts.fault?.('history');
          await mutateLedgerLocked(this.store, ref, (l) => {
            l.entries[key].steps.history = 'done';
          });
        });
      }

      // Done: the thread's earlier condensation is now replaced.
      entry = await record((e, l) => {
        e.status = 'done';
        e.leaseUntil = undefined;
        e.leaseHolder = undefined;
        e.lastError = undefined;
        for (const k of e.replacesKeys ?? []) if (l.entries[k]) l.entries[k].supersededBy = key;
      });
      this.opts.deps.logger.info({ key: key.slice(0, 12), file: fileName, conversation: refLabel(ref) }, 'condensation done');
      return {
        status: 'done',
        key,
        decisionId,
        draft,
        body,
        file: fileName,
        filePath: path.join(p.condensations, fileName),
        post: posted,
        notices,
        resumed: claim.resumed,
        replaced: entry.replacesKeys ?? [],
      };
    } catch (err) {
      const message = redactSecrets(err instanceof Error ? err.message : String(err));
      const failed = await mutateLedger(this.store, ref, (l) => {
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

  private async readContext(p: ChannelPaths, ref: ChannelRef): Promise<ContextData> {
    // Strict: folding into an empty context would leave CONTEXT.md with only the newest decision.
    const c = await this.store.readState(contextFile(p, ref), ContextData, { strict: true });
    return c && c.version === 1 ? c : structuredClone(EMPTY_CONTEXT);
  }
}
