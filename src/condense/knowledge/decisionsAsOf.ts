import { activeConstraints, ContextConstraint, ContextData, ContextDecision, newestFirst } from './contextData';

/**
 * The decisions of a channel as they stood at the end of one UTC day, from context.json alone: what
 * `minutes decisions --at` and `minutes mcp`'s `list_decisions` with `as_of` answer. A decision's
 * date is the day of the last message it rests on (the condensation's date); one replaced on or
 * before the day is no longer in force then, one made after it is not in force yet. Pure.
 */
export interface Replaced {
  decision: ContextDecision;
  /** The decision that replaced it, when context.json still holds it. */
  by?: ContextDecision;
  /** The day it was replaced. */
  on: string;
}

export interface DecisionsAsOf {
  /** In force at the end of the day, newest first. */
  inForce: ContextDecision[];
  /** Replaced on or before the day, newest first. */
  superseded: Replaced[];
  constraints: ContextConstraint[];
  /** The channel's current state when it was already written by then (an older one is not kept). */
  currentState?: { text: string; date: string };
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` naming a real calendar day, or one line saying what is wrong with it. */
export function parseDay(text: string): { day: string } | { problem: string } {
  const m = DAY.exec(text.trim());
  const d = m ? new Date(`${m[0]}T00:00:00Z`) : null;
  if (!m || !d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== m[0])
    return { problem: `"${text}" is not a date: give a day as YYYY-MM-DD (e.g. 2025-03-05); it means the end of that day, UTC` };
  return { day: m[0] };
}

/**
 * The day a decision stopped being in force. Files written before supersededDate was kept carry
 * only supersededBy: the replacing decision's own date is when it happened; with neither, its own
 * date (it is known to be replaced, never when, so it is not shown in force at any past day).
 */
function replacedOn(d: ContextDecision, byId: Map<string, ContextDecision>): string | undefined {
  if (!d.supersededBy) return undefined;
  return d.supersededDate ?? byId.get(d.supersededBy)?.date ?? d.date;
}

export function decisionsAsOf(data: ContextData, day: string): DecisionsAsOf {
  // 'none' entries are discussions without a conclusion: never listed, as in CONTEXT.md.
  const all = data.decisions.filter((d) => d.kind === 'decision');
  const byId = new Map(all.map((d) => [d.id, d]));
  const made = newestFirst(all.filter((d) => d.date.slice(0, 10) <= day));
  const inForce: ContextDecision[] = [];
  const superseded: Replaced[] = [];
  for (const d of made) {
    const on = replacedOn(d, byId);
    if (on !== undefined && on.slice(0, 10) <= day) superseded.push({ decision: d, by: byId.get(d.supersededBy!), on });
    else inForce.push(d);
  }
  // A constraint holds from its date while the decision that set it is in force (or set by a
  // discussion without a conclusion, which nothing replaces); as CONTEXT.md's Active Constraints.
  const lapsed = new Set(superseded.map((s) => s.decision.id));
  const later = new Set(all.filter((d) => d.date.slice(0, 10) > day).map((d) => d.id));
  const asThen: ContextData = {
    ...data,
    decisions: data.decisions.filter((d) => !later.has(d.id)).map((d) => (lapsed.has(d.id) || !d.supersededBy ? d : { ...d, supersededBy: undefined })),
    constraints: data.constraints.filter((c) => c.date.slice(0, 10) <= day && !later.has(c.decisionId)),
  };
  const currentState = data.currentState && data.currentState.date.slice(0, 10) <= day ? data.currentState : undefined;
  return { inForce, superseded, constraints: activeConstraints(asThen), ...(currentState ? { currentState } : {}) };
}
