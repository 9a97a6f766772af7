import type { ActionItem } from '../condense/knowledge/actionItems';
import { ContextData, ContextDecision, newestFirst } from '../condense/knowledge/contextData';
import { decisionsAsOf } from '../condense/knowledge/decisionsAsOf';
import { Confirmation, statusAsOf } from '../condense/knowledge/ratify';
import { readCondensations } from '../dashboard/data';
import { readTextOrNull } from '../memory/dataFiles';
import { folderLayout } from '../memory/layout';
import { jsonProblem, schemaProblem } from '../memory/storeErrors';
import type { Channel } from './catalog';
import { McpRequestError } from './errors';

/**
 * A channel's decisions and action items as an agent reads them, from `.minutes/context.json` (what
 * CONTEXT.md is rendered from; a private thread keeps its own). Read directly, never through the
 * store: the store sets an unreadable state file aside, and this server writes nothing.
 */
interface DecisionRef {
  id: string;
  topic: string;
  decision: string;
  date: string;
}

export interface DecisionView extends DecisionRef {
  /** Proposed, ratified and disputed decisions are in force (condense/knowledge/ratify.ts). */
  status: 'proposed' | 'ratified' | 'disputed' | 'superseded';
  /** Who confirmed it into force, display names then ids, in order (one each by default), and the day. */
  ratified_by?: string;
  ratified_by_id?: string;
  ratified_on?: string;
  /** Every confirmation by then (a proposed decision may have some short of the count). */
  confirmations?: Confirmation[];
  disputed_by?: string;
  disputed_by_id?: string;
  disputed_on?: string;
  /** The condensation file, relative to the channel's folder. */
  condensation?: string;
  /** The pinned Discord post of that condensation. */
  post_url?: string;
  /** Decisions this one replaced, newest first. */
  replaces?: DecisionRef[];
  replaced_by?: DecisionRef;
  replaced_on?: string;
}

export interface ActionItemView {
  id: string;
  text: string;
  owner?: string;
  due?: string;
  status: ActionItem['status'];
  opened: string;
  closed?: string;
  closed_by?: string;
  /** The decision it follows from. */
  decision?: DecisionRef;
  condensation?: string;
  post_url?: string;
}

/** A day after every date context.json holds: decisions as they stand now. */
const FOREVER = '9999-12-31';

export const NO_CONTEXT = 'no decision has been condensed here yet (no .minutes/context.json)';

/** The channel's context.json; null when there is none yet. One that does not parse or fit is a request error. */
export async function readContextData(c: Channel): Promise<ContextData | null> {
  const text = await readTextOrNull(folderLayout(c.unit.dir).contextData);
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new McpRequestError(`the decisions of ${c.key} cannot be read: its .minutes/context.json is not valid JSON (${jsonProblem(err)}); fix or remove it`);
  }
  const checked = ContextData.safeParse(value);
  if (!checked.success)
    throw new McpRequestError(`the decisions of ${c.key} cannot be read: its .minutes/context.json ${schemaProblem(checked.error.issues)}; fix or remove it`);
  return checked.data;
}

/** Condensation file → its pinned post, for the files that record one. */
async function postUrls(c: Channel): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const cond of await readCondensations(c.unit)) if (cond.postUrl) out.set(cond.file, cond.postUrl);
  return out;
}

const ref = (d: ContextDecision): DecisionRef => ({ id: d.id, topic: d.topic, decision: d.text, date: d.date });

function fileLinks(file: string | undefined, posts: Map<string, string>): { condensation?: string; post_url?: string } {
  if (!file) return {};
  const post = posts.get(file);
  return { condensation: `condensations/${file}`, ...(post ? { post_url: post } : {}) };
}

/** What members said of a decision by the end of `day`: its status, who ratified or reopened it. */
function statusFields(d: ContextDecision, day: string, replaced: boolean): Pick<DecisionView, Exclude<keyof DecisionView, keyof DecisionRef>> {
  const v = statusAsOf(d, day, replaced);
  const names = (cs: Confirmation[], k: 'id' | 'name') => cs.map((c) => c[k]).join(', ');
  return {
    status: v.status,
    ...(v.ratifiedOn ? { ratified_by: names(v.confirmations, 'name'), ratified_by_id: names(v.confirmations, 'id'), ratified_on: v.ratifiedOn } : {}),
    ...(v.confirmations.length ? { confirmations: v.confirmations } : {}),
    ...(v.disputedBy ? { disputed_by: v.disputedBy.name, disputed_by_id: v.disputedBy.id, disputed_on: v.disputedBy.at.slice(0, 10) } : {}),
  };
}

/**
 * list_decisions' answer: the decisions in force now, or at the end of `asOf` (a checked YYYY-MM-DD,
 * UTC) through the same rule `minutes decisions --at` uses (condense/knowledge/decisionsAsOf.ts).
 */
export async function listDecisions(c: Channel, includeSuperseded: boolean, asOf?: string) {
  const data = await readContextData(c);
  const head = { channel: c.key, label: c.label, ...(asOf ? { as_of: asOf } : {}) };
  if (!data) return { ...head, in_force: [], constraints: [], note: NO_CONTEXT };
  const posts = await postUrls(c);
  const decisions = data.decisions.filter((d) => d.kind === 'decision');
  const byId = new Map(decisions.map((d) => [d.id, d]));
  // Without a day, the end of time: every replacement made so far counts.
  const then = decisionsAsOf(data, asOf ?? FOREVER);
  const lapsed = new Set(then.superseded.map((s) => s.decision.id));
  const view = (d: ContextDecision): DecisionView => {
    const replaces = newestFirst(decisions.filter((o) => o.supersededBy === d.id)).map(ref);
    const replaced = lapsed.has(d.id) && d.supersededBy;
    const by = replaced ? byId.get(replaced) : undefined;
    const on = d.supersededDate ?? by?.date;
    return {
      ...ref(d),
      ...statusFields(d, asOf ?? FOREVER, Boolean(replaced)),
      ...fileLinks(d.file, posts),
      ...(replaces.length ? { replaces } : {}),
      ...(replaced ? { replaced_by: by ? ref(by) : { id: replaced, topic: '', decision: '', date: d.supersededDate ?? '' } } : {}),
      ...(replaced && on ? { replaced_on: on } : {}),
    };
  };
  const state = then.currentState ? { current_state: then.currentState } : {};
  return {
    ...head,
    ...state,
    in_force: then.inForce.map(view),
    ...(includeSuperseded ? { superseded: then.superseded.map((s) => view(s.decision)) } : {}),
    constraints: then.constraints.map((k) => ({ text: k.text, since: k.date, decision_id: k.decisionId })),
  };
}

export async function listActionItems(c: Channel, openOnly: boolean) {
  const data = await readContextData(c);
  const head = { channel: c.key, label: c.label };
  const items = data?.actions ?? [];
  const counts = { open: 0, done: 0, dropped: 0 };
  for (const i of items) counts[i.status]++;
  if (!data) return { ...head, counts, action_items: [], note: NO_CONTEXT };
  const posts = await postUrls(c);
  const byId = new Map(data.decisions.map((d) => [d.id, d]));
  const chosen = newestFirst(items.filter((i) => !openOnly || i.status === 'open').map((i) => ({ i, date: i.opened }))).map((x) => x.i);
  const action_items = chosen.map((i): ActionItemView => {
    const d = byId.get(i.decisionId);
    return {
      id: i.id,
      text: i.text,
      ...(i.owner ? { owner: i.owner } : {}),
      ...(i.due ? { due: i.due } : {}),
      status: i.status,
      opened: i.opened,
      ...(i.closed ? { closed: i.closed } : {}),
      ...(i.closedBy ? { closed_by: i.closedBy } : {}),
      ...(d ? { decision: ref(d) } : {}),
      ...fileLinks(i.file ?? d?.file, posts),
    };
  });
  return { ...head, counts, action_items };
}
