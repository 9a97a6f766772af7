import type { MemoryOp } from '../../memory/memoryOps';
import type { ChannelRef } from '../../memory/paths';
import type { ChannelPaths } from '../../memory/layout';
import type { ChannelStore } from '../../memory/store';
import { NAMES } from '../../memory/layout';
import { ActionItem, dueSuffix } from './actionItems';
import type { OpenQuestion } from './openQuestions';
import { currentVersion, Playbook, stepsInline } from './playbooks';
import { ContextData, lapsedConstraintMemoryIds } from './contextData';
import { findEntryId, pointSuperseded } from './memoryLink';
import type { CondensationDraft } from '../condensation/types';

/**
 * The condensation's step 5: MEMORY.md by operations. The decision is added (or supersedes the one
 * it replaces), its constraints are added, constraints and action items that lapsed with a replaced
 * decision are struck, and the decision's open action items are added as open loops, so memory and
 * recall know them. Open questions are open loops too; one it answered is struck in favour of a line
 * saying how, and those of a replaced decision are struck with it. A playbook is one entry naming
 * its file and steps, replaced by a new entry when a condensation changes the procedure. The MEMORY.md
 * ids are linked back into context.json (a later supersede, `/actions done` or an answer strikes them).
 */
export interface MemoryStepDeps {
  store: ChannelStore;
  now: Date;
  readContext(): Promise<ContextData>;
  contextFile: string;
}

export function actionMemoryText(topic: string, i: ActionItem): string {
  return `Action item ${i.id} (${topic}): ${i.text}${i.owner ? ` — ${i.owner}` : ''}${dueSuffix(i)}`;
}

export function questionMemoryText(topic: string, q: OpenQuestion): string {
  return `Open question ${q.id} (${topic}): ${q.text}${q.askedBy ? ` — asked by ${q.askedBy}` : ''}`;
}

export function answeredMemoryText(q: OpenQuestion): string {
  // A condensation's answer names its file in the entry's provenance; a person's answer names them here.
  const who = q.closedBy && !q.closedBy.startsWith('condensation ') ? `, ${q.closedBy}` : '';
  return `Question ${q.id} answered (${q.closed ?? '?'}${who}): ${q.text} → ${q.answer ?? ''}`;
}

export function playbookMemoryText(p: Playbook): string {
  const v = currentVersion(p);
  return `Playbook "${p.name}" (${v.steps.length} step${v.steps.length === 1 ? '' : 's'}, in ${NAMES.playbooks}/${p.slug}.md): ${stepsInline(v.steps)}`;
}

export async function condensationMemoryStep(
  d: MemoryStepDeps,
  p: ChannelPaths,
  ref: ChannelRef,
  o: { decisionId: string; draft: CondensationDraft; supersedes: string[]; fileName: string },
): Promise<{ decisionMemoryId?: string; constraintMemoryIds: string[] }> {
  const { store, now } = d;
  const { decisionId, draft, supersedes, fileName } = o;
  const ctx = await d.readContext();
  const source = `condensation ${fileName}`;
  const oldMemoryIds = supersedes.map((id) => ctx.decisions.find((x) => x.id === id)?.memoryId).filter((m): m is string => !!m);
  const decisionText = draft.decision === 'none' ? undefined : `Decision (${draft.topic}): ${draft.decision}`;
  const constraintTexts = draft.constraints.map((c) => `Constraint: ${c}`);
  const items = (ctx.actions ?? []).filter((i) => i.decisionId === decisionId && i.status === 'open' && !i.memoryId);
  const ops: MemoryOp[] = [];
  if (decisionText) {
    // The first replaced entry is superseded in place (the new entry lands right below it).
    ops.push(
      oldMemoryIds.length
        ? { op: 'supersede', id: oldMemoryIds[0], text: decisionText, source, reason: 'condensation' }
        : { op: 'add', text: decisionText, source, reason: 'condensation', section: 'Decisions' },
    );
  }
  for (const text of constraintTexts) ops.push({ op: 'add', text, source, reason: 'condensation', section: 'Constraints' });
  for (const i of items) ops.push({ op: 'add', text: actionMemoryText(draft.topic, i), source, reason: 'condensation', section: 'Open Loops' });
  ops.push(...knowledgeOps(ctx, decisionId, draft.topic, source));
  if (ops.length) await store.applyMemoryOps(ref, ops);
  const memory = (await store.read(store.parentRef(ref), 'MEMORY.md')) ?? '';
  const decisionMemoryId = decisionText ? findEntryId(memory, decisionText) : undefined;
  if (decisionMemoryId && oldMemoryIds.length > 1) {
    await pointSuperseded(
      store,
      ref,
      oldMemoryIds.slice(1).map((id) => ({ id })),
      decisionMemoryId,
      now,
    );
  }
  // Constraints that lapsed from CONTEXT.md with their decision are struck in MEMORY.md too, and so
  // are the open loops of action items dropped with it.
  const lapsed = lapsedConstraintMemoryIds(ctx, supersedes);
  const droppedItems = (ctx.actions ?? [])
    .filter((i) => i.status === 'dropped' && i.memoryId && supersedes.includes(i.decisionId))
    .map((i) => i.memoryId as string);
  const droppedQuestions = (ctx.questions ?? [])
    .filter((q) => q.status === 'dropped' && q.memoryId && supersedes.includes(q.decisionId))
    .map((q) => q.memoryId as string);
  const struck = [...lapsed, ...droppedItems, ...droppedQuestions];
  if (decisionMemoryId && struck.length)
    await pointSuperseded(
      store,
      ref,
      struck.map((id) => ({ id })),
      decisionMemoryId,
      now,
    );
  const constraintMemoryIds = constraintTexts.map((t) => findEntryId(memory, t)).filter((x): x is string => !!x);
  // Link the decision, its constraints and its items to their MEMORY entries.
  await store.exclusive(p, async (tx) => {
    const cur = await d.readContext();
    const dec = cur.decisions.find((x) => x.id === decisionId);
    if (dec) dec.memoryId = decisionMemoryId;
    for (const c of cur.constraints) {
      if (c.decisionId !== decisionId) continue;
      const id = findEntryId(memory, `Constraint: ${c.text}`);
      if (id) c.memoryId = id;
    }
    for (const i of cur.actions ?? []) {
      if (i.decisionId !== decisionId || i.memoryId) continue;
      const id = findEntryId(memory, actionMemoryText(draft.topic, i));
      if (id) i.memoryId = id;
    }
    for (const q of cur.questions ?? []) {
      if (q.decisionId !== decisionId || q.memoryId) continue;
      const id = findEntryId(memory, questionMemoryText(draft.topic, q));
      if (id) q.memoryId = id;
    }
    for (const pb of cur.playbooks ?? []) {
      if (currentVersion(pb).decisionId !== decisionId) continue;
      const id = findEntryId(memory, playbookMemoryText(pb));
      if (id) pb.memoryId = id;
    }
    await tx.writeState(d.contextFile, cur);
  });
  return { decisionMemoryId, constraintMemoryIds };
}

/**
 * The questions this condensation left open (added), those it answered (struck in favour of how),
 * and the playbooks it filed or changed (added, or the old entry replaced).
 */
function knowledgeOps(ctx: ContextData, decisionId: string, topic: string, source: string): MemoryOp[] {
  const ops: MemoryOp[] = [];
  for (const q of ctx.questions ?? []) {
    if (q.decisionId === decisionId && q.status === 'open' && !q.memoryId) {
      ops.push({ op: 'add', text: questionMemoryText(topic, q), source, reason: 'condensation', section: 'Open Loops' });
    }
    if (q.status === 'answered' && q.closedBy === `condensation ${decisionId}` && q.memoryId) {
      ops.push({ op: 'supersede', id: q.memoryId, text: answeredMemoryText(q), source, reason: 'answered' });
    }
  }
  for (const p of ctx.playbooks ?? []) {
    if (currentVersion(p).decisionId !== decisionId) continue;
    const text = playbookMemoryText(p);
    ops.push(
      p.memoryId
        ? { op: 'supersede', id: p.memoryId, text, source, reason: 'playbook changed' }
        : { op: 'add', text, source, reason: 'condensation', section: 'Playbooks' },
    );
  }
  return ops;
}
