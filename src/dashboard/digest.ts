import type { ActionItem } from '../condense/knowledge/actionItems';
import type { ContextConstraint, ContextData, ContextDecision } from '../condense/knowledge/contextData';
import { decisionsAsOf } from '../condense/knowledge/decisionsAsOf';
import type { OpenQuestion } from '../condense/knowledge/openQuestions';
import type { Playbook, PlaybookVersion } from '../condense/knowledge/playbooks';
import { statusAsOf, StatusView } from '../condense/knowledge/ratify';

/**
 * What a channel's pages show, from its context.json, as it stood at the end of one day (UTC) or
 * now: its state, the decisions in force with their status, those replaced, the open action items
 * (by owner, overdue ones counted), the open questions and the playbooks. Pure. Decisions go
 * through decisionsAsOf and statusAsOf, the rule `/decisions at:` and `minutes decisions --at` use,
 * so the page's "as of" answer is theirs by construction.
 */

export interface DecisionRow {
  decision: ContextDecision;
  status: StatusView;
}

export interface ReplacedRow extends DecisionRow {
  by?: ContextDecision;
  /** The day it was replaced. */
  on: string;
}

export interface OwnerItems {
  /** As written on the items; '' for items nobody owns. */
  owner: string;
  items: ActionItem[];
}

export interface PlaybookRow {
  playbook: Playbook;
  current: PlaybookVersion;
  /** Newest first. */
  earlier: PlaybookVersion[];
}

export interface ChannelDigest {
  /** The day it is as of (YYYY-MM-DD); absent: now. */
  day?: string;
  /** The day overdue is measured against: the as-of day, or today. */
  today: string;
  state?: { text: string; date: string };
  /** Newest first. */
  inForce: DecisionRow[];
  /** Newest first. */
  replaced: ReplacedRow[];
  constraints: ContextConstraint[];
  /** Condensation files of discussions that reached no decision (by the day). */
  noDecision: string[];
  /** Open action items, oldest first. */
  actions: ActionItem[];
  /** The open items grouped by owner (owners by name, nobody's last). */
  byOwner: OwnerItems[];
  overdue: ActionItem[];
  questions: OpenQuestion[];
  playbooks: PlaybookRow[];
}

const FOREVER = '9999-12-31';
const dayOf = (s: string | undefined): string => (s ?? '').slice(0, 10);

/** Open at the end of `day`: opened by then, and not closed by then. */
function openAt<T extends { opened: string; status: string; closed?: string }>(x: T, day: string): boolean {
  if (dayOf(x.opened) > day) return false;
  if (x.status === 'open') return true;
  return x.closed !== undefined && dayOf(x.closed) > day;
}

export function isOverdue(item: ActionItem, today: string): boolean {
  return item.due !== undefined && item.due < today;
}

export function channelDigest(data: ContextData, o: { day?: string; today: string }): ChannelDigest {
  const day = o.day ?? FOREVER;
  const then = decisionsAsOf(data, day);
  const today = o.day ?? o.today;
  const actions = (data.actions ?? []).filter((a) => openAt(a, day)).sort((a, b) => dayOf(a.opened).localeCompare(dayOf(b.opened)));
  const owners = new Map<string, ActionItem[]>();
  for (const a of actions) {
    const mine = owners.get(a.owner ?? '');
    if (mine) mine.push(a);
    else owners.set(a.owner ?? '', [a]);
  }
  const byOwner = [...owners.entries()]
    .map(([owner, items]) => ({ owner, items }))
    .sort((a, b) => ((a.owner === '') !== (b.owner === '') ? (a.owner === '' ? 1 : -1) : a.owner.localeCompare(b.owner)));
  const playbooks: PlaybookRow[] = [];
  for (const p of data.playbooks ?? []) {
    const versions = p.versions.filter((v) => dayOf(v.date) <= day);
    if (!versions.length) continue;
    playbooks.push({ playbook: p, current: versions[versions.length - 1]!, earlier: versions.slice(0, -1).reverse() });
  }
  playbooks.sort((a, b) => b.current.date.localeCompare(a.current.date));
  return {
    ...(o.day ? { day: o.day } : {}),
    today,
    ...(then.currentState ? { state: then.currentState } : {}),
    inForce: then.inForce.map((d) => ({ decision: d, status: statusAsOf(d, day, false) })),
    replaced: then.superseded.map((s) => ({ decision: s.decision, status: statusAsOf(s.decision, day, true), on: s.on, ...(s.by ? { by: s.by } : {}) })),
    constraints: then.constraints,
    noDecision: data.decisions.filter((d) => d.kind === 'none' && d.file && dayOf(d.date) <= day).map((d) => d.file!),
    actions,
    byOwner,
    overdue: actions.filter((a) => isOverdue(a, today)),
    questions: (data.questions ?? []).filter((q) => openAt(q, day)).sort((a, b) => dayOf(a.opened).localeCompare(dayOf(b.opened))),
    playbooks,
  };
}
