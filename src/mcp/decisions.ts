import type { ActionItem } from '../condense/knowledge/actionItems';
import { activeConstraints, ContextData, ContextDecision, newestFirst } from '../condense/knowledge/contextData';
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
  status: 'in force' | 'superseded';
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

const NO_CONTEXT = 'no decision has been condensed here yet (no .minutes/context.json)';

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

export async function listDecisions(c: Channel, includeSuperseded: boolean) {
  const data = await readContextData(c);
  const head = { channel: c.key, label: c.label };
  if (!data) return { ...head, in_force: [], constraints: [], note: NO_CONTEXT };
  const posts = await postUrls(c);
  // 'none' entries are discussions without a conclusion: never listed, as in CONTEXT.md.
  const decisions = data.decisions.filter((d) => d.kind === 'decision');
  const byId = new Map(decisions.map((d) => [d.id, d]));
  const view = (d: ContextDecision): DecisionView => {
    const replaces = newestFirst(decisions.filter((o) => o.supersededBy === d.id)).map(ref);
    const by = d.supersededBy ? byId.get(d.supersededBy) : undefined;
    return {
      ...ref(d),
      status: d.supersededBy ? 'superseded' : 'in force',
      ...fileLinks(d.file, posts),
      ...(replaces.length ? { replaces } : {}),
      ...(d.supersededBy ? { replaced_by: by ? ref(by) : { id: d.supersededBy, topic: '', decision: '', date: d.supersededDate ?? '' } } : {}),
      ...(d.supersededDate ? { replaced_on: d.supersededDate } : {}),
    };
  };
  const all = newestFirst(decisions);
  return {
    ...head,
    ...(data.currentState ? { current_state: data.currentState } : {}),
    in_force: all.filter((d) => !d.supersededBy).map(view),
    ...(includeSuperseded ? { superseded: all.filter((d) => d.supersededBy).map(view) } : {}),
    constraints: activeConstraints(data).map((k) => ({ text: k.text, since: k.date, decision_id: k.decisionId })),
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
