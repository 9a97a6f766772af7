import { foldActionItems } from './actionItems';
import { foldQuestions } from './openQuestions';
import { foldPlaybooks } from './playbooks';
import type { ContextData, ContextDecision } from './contextData';
import type { CondensationDraft, CondensationFacts } from '../condensation/types';

export interface FoldInput {
  decisionId: string;
  ledgerKey: string;
  draft: CondensationDraft;
  facts: CondensationFacts;
  file?: string;
  threadId?: string;
  /** Decision ids this condensation replaces (the model's plus the thread's previous one). */
  supersedes: string[];
}

/**
 * Folds one condensation into the structured context (pure). Upserts by decision id, so applying
 * the same condensation twice (a resumed run) gives the same data.
 */
export function foldCondensation(prev: ContextData, f: FoldInput): ContextData {
  const decisions: ContextDecision[] = prev.decisions.map((d) => ({ ...d }));
  const existing = decisions.find((d) => d.id === f.decisionId);
  const kind = f.draft.decision === 'none' ? 'none' : 'decision';
  // A new decision is the Secretary's proposal until a member confirms it (ratify.ts); a resumed run keeps what members said.
  const status = existing?.status ?? (kind === 'decision' ? 'proposed' : undefined);
  const entry: ContextDecision = {
    ...(existing ?? {}),
    id: f.decisionId,
    kind,
    topic: f.draft.topic,
    text: f.draft.decision,
    date: f.facts.date,
    file: f.file ?? existing?.file,
    ledgerKey: f.ledgerKey,
    threadId: f.threadId,
    ...(status ? { status } : {}),
  };
  if (existing) Object.assign(existing, entry);
  else decisions.push(entry);
  for (const id of f.supersedes) {
    const old = decisions.find((d) => d.id === id);
    if (!old || old.id === f.decisionId || old.supersededBy) continue;
    old.supersededBy = f.decisionId;
    old.supersededDate = f.facts.date;
    // Whatever members said of it (ratified, disputed), the new condensation settled it.
    if (old.kind === 'decision') old.status = 'superseded';
  }
  const constraints = prev.constraints.map((c) => ({ ...c }));
  const have = new Set(constraints.filter((c) => c.decisionId === f.decisionId).map((c) => c.text.toLowerCase()));
  for (const text of f.draft.constraints) {
    if (have.has(text.toLowerCase())) continue;
    constraints.push({ text, date: f.facts.date, decisionId: f.decisionId });
    have.add(text.toLowerCase());
  }
  const cur = prev.currentState;
  // An older discussion condensed late must not overwrite a newer state.
  const currentState = f.draft.currentState && (!cur || cur.date <= f.facts.date) ? { text: f.draft.currentState, date: f.facts.date } : cur;
  const { items } = foldActionItems(prev.actions ?? [], {
    decisionId: f.decisionId,
    file: f.file,
    date: f.facts.date,
    raw: f.draft.actionItems,
    supersedes: f.supersedes,
    authors: f.facts.authors,
  });
  const questions = foldQuestions(prev.questions ?? [], {
    decisionId: f.decisionId,
    file: f.file,
    date: f.facts.date,
    raw: f.draft.openQuestions ?? [],
    answered: f.draft.answeredQuestions ?? [],
    supersedes: f.supersedes,
    authors: f.facts.authors,
  });
  const playbooks = foldPlaybooks(prev.playbooks ?? [], { decisionId: f.decisionId, file: f.file, date: f.facts.date, raw: f.draft.playbooks ?? [] });
  return {
    version: 1,
    currentState,
    decisions,
    constraints,
    ...(items.length ? { actions: items } : {}),
    // Absent until a condensation names any: a channel without them keeps the file it had.
    ...(questions.length ? { questions } : {}),
    ...(playbooks.length ? { playbooks } : {}),
  };
}
