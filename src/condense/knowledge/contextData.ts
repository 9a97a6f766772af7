import { z } from 'zod';
import { ActionItem } from './actionItems';
import { OpenQuestion } from './openQuestions';
import { Playbook } from './playbooks';

/**
 * `.minutes/context.json`: the decisions, constraints, action items, open questions and playbooks CONTEXT.md is rendered from
 * by code (contextRender.ts), never written by a model, and the lists derived from them.
 * context.json's shapes are zod schemas that share their type's name; objects are loose, so keys
 * this version does not know survive a rewrite.
 */
export const ContextDecision = z.looseObject({
  /** `d-` + the first 10 hex of the ledger key: stable, so a resumed step upserts, never duplicates. */
  id: z.string(),
  /** 'none' entries are discussions without a conclusion: not listed, but they own constraints. */
  kind: z.enum(['decision', 'none']),
  topic: z.string(),
  text: z.string(),
  date: z.string(),
  /** Condensation file name, relative to the condensations folder. */
  file: z.string().optional(),
  memoryId: z.string().optional(),
  supersededBy: z.string().optional(),
  supersededDate: z.string().optional(),
  ledgerKey: z.string(),
  threadId: z.string().optional(),
  /**
   * The team's say on it (ratify.ts). Absent in files written before decisions were ratified: read as
   * 'proposed', or 'superseded' when supersededBy is set (decisionStatus); supersededBy always wins.
   */
  status: z.enum(['proposed', 'ratified', 'disputed', 'superseded']).optional(),
  /** The members who confirmed it, in order; it is ratified once there are `secretary.ratify.minConfirmations`. */
  ratifiedBy: z.array(z.looseObject({ id: z.string(), name: z.string(), at: z.string() })).optional(),
  /** When the last confirmation it needed came (ISO): the day it counts as ratified from. */
  ratifiedAt: z.string().optional(),
  /** Who reopened it, and when (ISO): it stays disputed until a new condensation replaces it. */
  disputedBy: z.looseObject({ id: z.string(), name: z.string(), at: z.string() }).optional(),
});
export type ContextDecision = z.infer<typeof ContextDecision>;
export type DecisionStatus = NonNullable<ContextDecision['status']>;

export const ContextConstraint = z.looseObject({
  text: z.string(),
  date: z.string(),
  /** The condensation that established it; it lapses when that decision is superseded. */
  decisionId: z.string(),
  memoryId: z.string().optional(),
});
export type ContextConstraint = z.infer<typeof ContextConstraint>;

export const ContextData = z.looseObject({
  version: z.literal(1),
  currentState: z.looseObject({ text: z.string(), date: z.string() }).optional(),
  decisions: z.array(ContextDecision),
  constraints: z.array(ContextConstraint),
  /** Absent in files written before action items were tracked. */
  actions: z.array(ActionItem).optional(),
  /** Absent in files written before open questions were tracked (and in channels that never had one). */
  questions: z.array(OpenQuestion).optional(),
  /** Absent until a condensation files a playbook. */
  playbooks: z.array(Playbook).optional(),
});
export type ContextData = z.infer<typeof ContextData>;

export const EMPTY_CONTEXT: ContextData = { version: 1, decisions: [], constraints: [] };

export function decisionIdFor(ledgerKey: string): string {
  return `d-${ledgerKey.slice(0, 10)}`;
}

export function currentDecisions(data: ContextData): ContextDecision[] {
  return newestFirst(data.decisions.filter((d) => d.kind === 'decision' && !d.supersededBy));
}

export function activeConstraints(data: ContextData): ContextConstraint[] {
  const lapsed = new Set(data.decisions.filter((d) => d.supersededBy).map((d) => d.id));
  const seen = new Set<string>();
  return data.constraints.filter((c) => {
    const k = c.text.toLowerCase();
    if (lapsed.has(c.decisionId) || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * MEMORY.md ids of the constraints of `replaced` decisions that no current decision still owns:
 * they left Active Constraints, so MEMORY.md must not keep listing them as current.
 */
export function lapsedConstraintMemoryIds(data: ContextData, replaced: string[]): string[] {
  const stillActive = new Set(activeConstraints(data).map((c) => c.text.toLowerCase()));
  return data.constraints
    .filter((c) => replaced.includes(c.decisionId) && c.memoryId && !stillActive.has(c.text.toLowerCase()))
    .map((c) => c.memoryId as string);
}

export function newestFirst<T extends { date: string }>(xs: T[]): T[] {
  // Stable on ties: among same-day decisions the later-filed one comes first.
  return xs
    .map((x, i) => ({ x, i }))
    .sort((a, b) => b.x.date.localeCompare(a.x.date) || b.i - a.i)
    .map((e) => e.x);
}
