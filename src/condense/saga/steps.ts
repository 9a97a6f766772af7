import { renderHistoryBlock } from '../../memory/history';
import type { ChannelRef } from '../../memory/paths';
import type { ChannelPaths } from '../../memory/layout';
import type { ChannelStore } from '../../memory/store';
import type { ChannelTx } from '../../memory/channelTx';
import type { SideTaskDeps } from '../../llm/sideTask';
import { NAMES } from '../../memory/layout';
import { composePlaybook } from '../knowledge/playbookFile';
import { droppedNow } from '../knowledge/actionItems';
import { closedNow, openQuestions } from '../knowledge/openQuestions';
import { byLastChange, changedPlaybooks, currentVersion } from '../knowledge/playbooks';
import { activeConstraints, ContextData, currentDecisions } from '../knowledge/contextData';
import { readContext, writeContextFiles } from '../knowledge/contextFiles';
import { draftCondensation } from './draft';
import { fileCondensation, historyBody, redactDraft } from './filing';
import { foldCondensation } from '../knowledge/fold';
import { latestForThread } from './ledgerQueries';
import { Ledger, LedgerEntry } from './ledgerSchema';
import { readLedger } from './ledgerFile';
import { condensationMemoryStep } from '../knowledge/memoryStep';
import { markerFor, renderCondensation, renderPost, RenderInput, SupersededRef } from '../condensation/render';
import type { CondensationDraft, CondenseTarget, Poster, TranscriptMessage } from '../condensation/types';

/**
 * The steps of a condensation, in the order the Secretary runs them: draft, post, file, context,
 * memory, history. A step does its effect and returns what the ledger entry records of it; the
 * Secretary's runner skips a step its entry already records, writes the record, and calls the fault
 * hook a step is handed as `crashPoint`.
 */

/** A condensation run that holds its ledger key: what every step may use. */
export interface ClaimedRun {
  deps: SideTaskDeps;
  store: ChannelStore;
  ref: ChannelRef;
  p: ChannelPaths;
  key: string;
  decisionId: string;
  threadId: string | undefined;
  target: CondenseTarget;
  human: TranscriptMessage[];
  /** Absent in console/CLI mode: nothing is posted. */
  poster: Poster | undefined;
  budgetChars: number;
  onProgress: ((msg: string) => void) | undefined;
  /** The entry as last recorded; the runner replaces it after each step's record. */
  entry: LedgerEntry;
  /** Things to tell the channel once; steps add to it. */
  notices: string[];
}

/** A run past its draft: what the draft replaces and the body every place it goes shows. */
export interface DraftedRun extends ClaimedRun {
  draft: CondensationDraft;
  /** Ids of the decisions this one replaces: the model's, and those of the thread's replaced condensations. */
  supersedes: string[];
  /** context.json as it was before this run's fold. */
  contextBefore: ContextData;
  rendered: RenderInput;
  body: string;
}

/** What a step's ledger entry records once its effect is done. */
export type LedgerRecord = (entry: LedgerEntry, ledger: Ledger) => void;

/**
 * One step. `crashPoint` is where a crash would hurt most, after the effect and before its record;
 * tests inject crashes there, so the step calls it at that moment rather than the runner after it.
 */
export type CondenseStep<R extends ClaimedRun> = (run: R, crashPoint: () => Promise<void>) => Promise<LedgerRecord>;

/** A step run in the channel's exclusive section with its record (see the runner): `tx` writes under that lock. */
export type ExclusiveStep<R extends ClaimedRun> = (run: R, tx: ChannelTx, crashPoint: () => Promise<void>) => Promise<LedgerRecord>;

export const PIN_NOT_ALLOWED_NOTICE = "I can't pin messages here (missing the Pin Messages permission), so condensations are posted without pinning.";
export const PINS_FULL_NOTICE = "This channel's pins are full and none of them are my condensations, so I posted this one without pinning.";

/** 1. The model's part (a resumed run keeps the answer the entry recorded). */
export const draftStep: CondenseStep<ClaimedRun> = async (run, crashPoint) => {
  const context = await readContext(run.store, run.ref);
  const raw = await draftCondensation(run.deps, {
    ref: run.ref,
    channelName: run.target.channelName,
    threadName: run.target.threadName,
    topicHint: run.target.topicHint,
    human: run.human,
    currentDecisions: currentDecisions(context).map((d) => ({ id: d.id, date: d.date, topic: d.topic, text: d.text })),
    activeConstraints: activeConstraints(context).map((c) => c.text),
    openQuestions: openQuestions(context.questions)
      .reverse()
      .map((q) => ({ id: q.id, opened: q.opened, text: q.askedBy ? `${q.text} — ${q.askedBy}` : q.text })),
    playbooks: byLastChange(context.playbooks).map((p) => ({ name: p.name, steps: currentVersion(p).steps })),
    budgetChars: run.budgetChars,
    onProgress: run.onProgress,
  });
  const draft = redactDraft(raw);
  await crashPoint();
  return (e, l) => {
    e.draft = draft;
    // Same thread condensed again (it grew): the new condensation replaces the previous one.
    const prev = run.threadId ? latestForThread(l, run.threadId, run.key) : undefined;
    e.replacesKeys = prev ? [prev.key] : [];
  };
};

/** The run once its draft is recorded, with what the later steps share. */
export async function draftedRun(run: ClaimedRun): Promise<DraftedRun> {
  const draft = run.entry.draft as CondensationDraft;
  const ledgerNow = await readLedger(run.store, run.ref);
  const replacedIds = (run.entry.replacesKeys ?? []).map((k) => ledgerNow.entries[k]?.decisionId).filter((x): x is string => !!x);
  const supersedes = [...new Set([...draft.supersedes, ...replacedIds])].filter((id) => id !== run.decisionId);
  const contextBefore = await readContext(run.store, run.ref);
  const supRefs: SupersededRef[] = supersedes
    .map((id) => contextBefore.decisions.find((d) => d.id === id))
    .filter((d): d is NonNullable<typeof d> => !!d && d.kind === 'decision')
    .map((d) => ({ id: d.id, date: d.date, text: d.text }));
  const answered = (draft.answeredQuestions ?? [])
    .map((a) => ({ ...a, q: contextBefore.questions?.find((q) => q.id === a.id) }))
    .filter((a) => a.q)
    .map((a) => ({ id: a.id, text: a.q!.text, answer: a.answer }));
  const rendered = { draft, facts: run.entry.facts, supersedes: supRefs, ...(answered.length ? { answered } : {}) };
  return { ...run, draft, supersedes, contextBefore, rendered, body: renderCondensation(rendered) };
}

/** The post the entry records, when there is one (not skipped). */
export function postedMessage(entry: LedgerEntry): Exclude<LedgerEntry['steps']['posted'], 'skipped'> {
  return typeof entry.steps.posted === 'object' ? entry.steps.posted : undefined;
}

/** 2. Post and pin. */
export const postStep: CondenseStep<DraftedRun> = async (run, crashPoint) => {
  const { poster, target, draft } = run;
  if (!poster || (target.trigger === 'auto' && draft.decision === 'none')) {
    return (e) => {
      e.steps.posted = 'skipped';
    };
  }
  // A run that died after posting left its post behind: find it instead of posting again.
  const found = await poster.findByMarker(markerFor(run.key));
  const msg = found ?? (await poster.post(renderPost(run.rendered, run.key), draft.decision === 'none' ? {} : { decisionId: run.decisionId }));
  await crashPoint();
  const pin = await poster.pin(msg.messageId);
  return (e, l) => {
    e.steps.posted = { messageId: msg.messageId, url: (msg as { url?: string }).url, pin };
    if (pin === 'not-allowed' && !l.pinNotAllowedNoticeAt) {
      l.pinNotAllowedNoticeAt = run.deps.clock().toISOString();
      run.notices.push(PIN_NOT_ALLOWED_NOTICE);
    }
    if (pin === 'full-none-ours') run.notices.push(PINS_FULL_NOTICE);
  };
};

/** 3. The condensation file (and superseded_by on the files it replaces). */
export const fileStep: ExclusiveStep<DraftedRun> = async (run, _tx, crashPoint) => {
  const { store, p, ref, key, target, entry, draft, body, supersedes } = run;
  const name = await fileCondensation(store, { p, ref, key, target, entry, draft, body, supersedes, ctx: run.contextBefore, posted: postedMessage(entry) });
  await crashPoint();
  return (e) => {
    e.steps.filed = name;
  };
};

/** 4. context.json, and CONTEXT.md rendered from it (never for a private thread: that file is the parent's). */
export const contextStep: ExclusiveStep<DraftedRun> = async (run, tx, crashPoint) => {
  const { p, ref, entry } = run;
  const prev = await readContext(run.store, run.ref);
  const next = foldCondensation(prev, {
    decisionId: run.decisionId,
    ledgerKey: run.key,
    draft: run.draft,
    facts: entry.facts,
    file: entry.steps.filed as string,
    threadId: run.threadId,
    supersedes: run.supersedes,
  });
  const dropped = droppedNow(prev, next);
  if (dropped.length) run.notices.push(`Closed the open action items of the replaced decision: ${dropped.map((i) => `${i.id} (${i.text})`).join('; ')}.`);
  const droppedQuestions = closedNow(prev, next, 'dropped');
  if (droppedQuestions.length) {
    run.notices.push(`Closed the open questions of the replaced decision: ${droppedQuestions.map((q) => `${q.id} (${q.text})`).join('; ')}.`);
  }
  // A changed procedure is said, never changed silently (the post shows the new steps).
  for (const c of changedPlaybooks(prev, next).filter((x) => x.previous)) {
    run.notices.push(`Updated the playbook “${c.playbook.name}”: ${NAMES.playbooks}/${c.playbook.slug}.md keeps its earlier steps, struck through.`);
  }
  // Playbook files before context.json: a resumed step finds the change still to make and makes it.
  for (const c of changedPlaybooks(prev, next)) {
    const before = prev.playbooks?.find((x) => x.slug === c.playbook.slug);
    await tx.updatePlaybook(c.playbook.slug, (cur) => composePlaybook(cur, before, c.playbook));
  }
  if (!ref.privateThread) {
    // CONTEXT.md first: a crash before context.json leaves a file whose hash still matches.
    await writeContextFiles(tx, prev, next);
  }
  await tx.writeState(p.contextData, next);
  await crashPoint();
  return (e) => {
    e.steps.context = ref.privateThread ? 'skipped' : 'done';
  };
};

/** 5. MEMORY.md by operations. */
export const memoryStep: CondenseStep<DraftedRun> = async (run, crashPoint) => {
  const { store, p, ref } = run;
  const mem = await condensationMemoryStep({ store, now: run.deps.clock(), readContext: () => readContext(store, ref), contextFile: p.contextData }, p, ref, {
    decisionId: run.decisionId,
    draft: run.draft,
    supersedes: run.supersedes,
    fileName: run.entry.steps.filed as string,
  });
  await crashPoint();
  return (e) => {
    e.steps.memory = mem;
  };
};

/** 6. HISTORY.md: one block, recognised by its marker on a resumed run. */
export const historyStep: ExclusiveStep<DraftedRun> = async (run, tx, crashPoint) => {
  const { entry, draft } = run;
  const marker = markerFor(run.key);
  await tx.update('HISTORY.md', (cur) => {
    if (cur.includes(marker)) return cur;
    const block = renderHistoryBlock({
      at: new Date(`${entry.facts.date}T00:00:00Z`),
      title: `Condensation: ${draft.topic}`,
      body: historyBody(draft, entry, entry.steps.filed as string, marker),
    });
    return `${cur.replace(/\s*$/, '')}\n\n${block}`;
  });
  await crashPoint();
  return (e) => {
    e.steps.history = 'done';
  };
};
