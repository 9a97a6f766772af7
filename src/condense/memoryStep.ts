import type { MemoryOp } from '../memory/memoryOps';
import type { ChannelRef } from '../memory/paths';
import type { ChannelPaths } from '../memory/layout';
import type { ChannelStore } from '../memory/store';
import { ActionItem, dueSuffix } from './actionItems';
import { ContextData, lapsedConstraintMemoryIds } from './contextData';
import { findEntryId, pointSuperseded } from './memoryLink';
import type { CondensationDraft } from './types';

/**
 * The condensation's step 5: MEMORY.md by operations. The decision is added (or supersedes the one
 * it replaces), its constraints are added, constraints and action items that lapsed with a replaced
 * decision are struck, and the decision's open action items are added as open loops, so memory and
 * recall know them. The MEMORY.md ids are linked back into context.json (a later supersede or
 * `/actions done` strikes them).
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
  const struck = [...lapsed, ...droppedItems];
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
  await store.exclusive(p, async () => {
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
    await store.writeStateLocked(p, d.contextFile, cur);
  });
  return { decisionMemoryId, constraintMemoryIds };
}
