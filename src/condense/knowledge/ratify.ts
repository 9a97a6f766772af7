import type { ContextData, ContextDecision, DecisionStatus } from './contextData';

/**
 * The team's say on a decision the Secretary recorded (pure). A decision is `proposed` until
 * members confirm it (`ratified` once `secretary.ratify.minConfirmations` have); a member may
 * reopen it (`disputed`) until a new condensation replaces it (fold.ts makes it `superseded`).
 * Proposed and disputed decisions are still in force: nothing replaced them yet. Each operation
 * returns the new context or a refusal with one line a member can act on; the Discord buttons and
 * the store's writers (ratifyFiles.ts) only carry them out.
 */

export interface RatifySettings {
  /** Confirmations needed before a decision counts as ratified (at least 1). */
  minConfirmations: number;
  /** When set, only members with this role id may confirm or reopen. */
  role?: string;
}

export const RATIFY_DEFAULTS: RatifySettings = { minConfirmations: 1 };

/** Who clicked: a member's id, display name and role ids. */
export interface Member {
  id: string;
  name: string;
  roles?: readonly string[];
}

export interface Confirmation {
  id: string;
  name: string;
  /** ISO time. */
  at: string;
}

/** Why a change was refused: the Discord side may pick its words by it; `why` is one line either way. */
export type Refusal = 'unknown' | 'role' | 'superseded' | 'disputed' | 'already';

export type DecisionChange = { ok: true; data: ContextData; decision: ContextDecision; status: DecisionStatus } | { ok: false; reason: Refusal; why: string };

/** A decision's status now; files from before ratification have none (proposed), and supersededBy always wins. */
export function decisionStatus(d: ContextDecision): DecisionStatus {
  if (d.supersededBy) return 'superseded';
  return d.status === 'ratified' || d.status === 'disputed' ? d.status : 'proposed';
}

/** A decision's status as it stood at the end of `day` (YYYY-MM-DD, UTC), with who said so by then. */
export interface StatusView {
  status: DecisionStatus;
  /** Confirmations given by then, in order (a proposed decision may have some short of the count). */
  confirmations: Confirmation[];
  /** The day it counts as ratified from, when it was by then. */
  ratifiedOn?: string;
  disputedBy?: Confirmation;
}

const dayOf = (iso: string): string => iso.slice(0, 10);
const FOREVER = '9999-12-31';

/**
 * `replaced`: whether it was replaced by the end of the day (decisionsAsOf knows; now, supersededBy).
 * A status set by hand without its time counts from the decision's own date.
 */
export function statusAsOf(d: ContextDecision, day: string = FOREVER, replaced: boolean = d.supersededBy !== undefined): StatusView {
  const confirmations = (d.ratifiedBy ?? []).filter((c) => dayOf(c.at) <= day).map((c) => ({ id: c.id, name: c.name, at: c.at }));
  const ratifiedAt = d.ratifiedAt ?? (d.status === 'ratified' ? (d.ratifiedBy?.at(-1)?.at ?? d.date) : undefined);
  const disputedAt = d.disputedBy?.at ?? (d.status === 'disputed' ? d.date : undefined);
  const ratifiedOn = ratifiedAt && dayOf(ratifiedAt) <= day ? dayOf(ratifiedAt) : undefined;
  const base = { confirmations, ...(ratifiedOn ? { ratifiedOn } : {}) };
  if (replaced) return { status: 'superseded', ...base };
  if (disputedAt && dayOf(disputedAt) <= day) {
    const by = d.disputedBy;
    return { status: 'disputed', ...base, ...(by ? { disputedBy: { id: by.id, name: by.name, at: by.at } } : {}) };
  }
  return ratifiedOn ? { status: 'ratified', ...base } : { status: 'proposed', confirmations };
}

/**
 * The status in words, as CONTEXT.md and `minutes decisions` say it: "ratified by Ana (2026-11-28)",
 * "proposed", "proposed, confirmed by Ana", "disputed: reopened by Ben (2026-11-29)". `name` renders
 * a display name (CONTEXT.md escapes markdown in it).
 */
export function statusWords(v: StatusView, name: (s: string) => string = (s) => s): string {
  const names = v.confirmations.map((c) => name(c.name)).join(', ');
  switch (v.status) {
    case 'ratified':
      return `ratified by ${names || 'a member'} (${v.ratifiedOn})`;
    case 'disputed':
      return v.disputedBy ? `disputed: reopened by ${name(v.disputedBy.name)} (${dayOf(v.disputedBy.at)})` : 'disputed';
    case 'superseded':
      return 'superseded';
    case 'proposed':
      return names ? `proposed, confirmed by ${names}` : 'proposed';
  }
}

/** A display name as recorded: one line, at most 80 characters (Discord's are 32), the id when empty. */
function recordedName(m: Member): string {
  const flat = m.name.replace(/\s+/g, ' ').trim().slice(0, 80);
  return flat || m.id;
}

/** The decision a click names, or why it cannot be changed by this member (checks shared by both operations). */
function target(
  data: ContextData,
  decisionId: string,
  m: Member,
  s: RatifySettings,
): { ok: true; d: ContextDecision } | { ok: false; reason: Refusal; why: string } {
  const id = decisionId.trim();
  const d = data.decisions.find((x) => x.id === id && x.kind === 'decision');
  if (!d) return { ok: false, reason: 'unknown', why: `no decision ${id} in this channel: it may have been recorded in another one` };
  if (s.role && !(m.roles ?? []).includes(s.role))
    return { ok: false, reason: 'role', why: `only members with the role <@&${s.role}> may confirm or reopen decisions here (secretary.ratify.role)` };
  if (d.supersededBy) {
    const by = data.decisions.find((x) => x.id === d.supersededBy);
    return {
      ok: false,
      reason: 'superseded',
      why: `${id} was replaced by ${by?.id ?? d.supersededBy} on ${d.supersededDate ?? by?.date ?? '?'}: it is no longer in force`,
    };
  }
  return { ok: true, d };
}

function withDecision(data: ContextData, next: ContextDecision): ContextData {
  return { ...data, decisions: data.decisions.map((d) => (d.id === next.id ? next : d)) };
}

/**
 * A member confirms a decision in force. It is ratified once it has `minConfirmations` (it stays
 * ratified if the setting is raised later); a member confirms once. A disputed decision waits for
 * the condensation that settles it.
 */
export function confirmDecision(data: ContextData, decisionId: string, m: Member, at: Date, s: RatifySettings = RATIFY_DEFAULTS): DecisionChange {
  const t = target(data, decisionId, m, s);
  if (!t.ok) return t;
  const d = t.d;
  const now = decisionStatus(d);
  if (now === 'disputed') {
    const by = d.disputedBy;
    return {
      ok: false,
      reason: 'disputed',
      why: `${d.id} was reopened${by ? ` by ${by.name} on ${dayOf(by.at)}` : ''}: a new condensation of the discussion settles it`,
    };
  }
  const prior = d.ratifiedBy ?? [];
  if (prior.some((c) => c.id === m.id)) {
    const rest = Math.max(1, s.minConfirmations) - prior.length;
    return {
      ok: false,
      reason: 'already',
      why: `you already confirmed ${d.id}${now === 'ratified' ? '' : `; it needs ${rest} more member${rest === 1 ? '' : 's'}`}`,
    };
  }
  const iso = at.toISOString();
  const ratifiedBy = [...prior, { id: m.id, name: recordedName(m), at: iso }];
  const ratified = now === 'ratified' || ratifiedBy.length >= Math.max(1, s.minConfirmations);
  const next: ContextDecision = { ...d, ratifiedBy, status: ratified ? 'ratified' : 'proposed', ...(ratified ? { ratifiedAt: d.ratifiedAt ?? iso } : {}) };
  return { ok: true, data: withDecision(data, next), decision: next, status: next.status as DecisionStatus };
}

/**
 * A member reopens a decision in force: it is disputed (still in force, nothing replaced it) until a
 * new condensation replaces it. Its confirmations are kept as a record; it cannot be confirmed meanwhile.
 */
export function reopenDecision(data: ContextData, decisionId: string, m: Member, at: Date, s: RatifySettings = RATIFY_DEFAULTS): DecisionChange {
  const t = target(data, decisionId, m, s);
  if (!t.ok) return t;
  const d = t.d;
  if (decisionStatus(d) === 'disputed') {
    const by = d.disputedBy;
    return { ok: false, reason: 'disputed', why: `${d.id} is already reopened${by ? ` (by ${by.name} on ${dayOf(by.at)})` : ''}` };
  }
  const next: ContextDecision = { ...d, status: 'disputed', disputedBy: { id: m.id, name: recordedName(m), at: at.toISOString() } };
  return { ok: true, data: withDecision(data, next), decision: next, status: 'disputed' };
}
