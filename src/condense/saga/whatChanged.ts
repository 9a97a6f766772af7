import type { ContextData, ContextDecision } from '../knowledge/contextData';
import { decisionsAsOf } from '../knowledge/decisionsAsOf';
import { statusAsOf, statusWords } from '../knowledge/ratify';
import type { Ledger } from './ledgerSchema';
import { postedMessage } from './steps';

/**
 * What `/decisions at:` and `/catchup` say, from a channel's context.json and ledger (pure). Each
 * decision links to its pinned post when the ledger recorded one. A decision's day is the day of the
 * last message it rests on (decisionsAsOf.ts); what was made "since" someone spoke is known more
 * precisely, from when its condensation ran (the ledger's createdAt). Action items and questions keep
 * only the day they were closed: they count from the day the member last spoke.
 */

/** The pinned post of each decision the ledger knows, by decision id. */
export function postLinks(l: Ledger): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of Object.values(l.entries)) {
    const url = postedMessage(e)?.url;
    if (url) out.set(e.decisionId, url);
  }
  return out;
}

const oneLine = (s: string, max = 160) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

function decisionLine(d: ContextDecision, status: string, links: Map<string, string>): string {
  const link = links.get(d.id);
  return `- \`${d.id}\` (${d.date.slice(0, 10)}) **${oneLine(d.topic, 60)}**: ${oneLine(d.text)} — ${status}${link ? ` — ${link}` : ''}`;
}

/** `/decisions at:<day>`: the decisions in force at the end of that UTC day, and those replaced by then. */
export function decisionsAtText(data: ContextData, day: string, links: Map<string, string>): string {
  const asOf = decisionsAsOf(data, day);
  if (!asOf.inForce.length && !asOf.superseded.length) return `No decisions had been recorded in this channel by the end of ${day} (UTC).`;
  const lines = [`**Decisions in force at the end of ${day} (UTC)**`];
  if (!asOf.inForce.length) lines.push('- none');
  for (const d of asOf.inForce) lines.push(decisionLine(d, statusWords(statusAsOf(d, day, false)), links));
  if (asOf.superseded.length) {
    lines.push('', '**Replaced by then**');
    for (const s of asOf.superseded)
      lines.push(`- ~~\`${s.decision.id}\` ${oneLine(s.decision.text)}~~ → ${s.by ? `\`${s.by.id}\`` : 'a later decision'} (${s.on.slice(0, 10)})`);
  }
  return lines.join('\n');
}

export interface CatchUpInput {
  data: ContextData;
  ledger: Ledger;
  /** The member, by account id. */
  userId: string;
  /** When they last spoke in this channel (ISO). */
  since: string;
}

/** `/catchup`: what changed in the channel since the member last spoke in it. */
export function catchUpText(o: CatchUpInput): string {
  const { data, ledger, userId, since } = o;
  const sinceDay = since.slice(0, 10);
  const links = postLinks(ledger);
  // Condensations begun since (one still finishing its last steps counts once context.json has it).
  const madeSince = new Set(
    Object.values(ledger.entries)
      .filter((e) => e.createdAt >= since)
      .map((e) => e.decisionId),
  );
  const byId = new Map(data.decisions.map((d) => [d.id, d]));
  const made = data.decisions.filter((d) => d.kind === 'decision' && madeSince.has(d.id));
  const replaced = data.decisions.filter((d) => d.supersededBy && madeSince.has(d.supersededBy));
  const mine = (data.actions ?? []).filter((a) => a.ownerId === userId && a.status === 'open' && madeSince.has(a.decisionId));
  const closed = (data.actions ?? []).filter((a) => a.status !== 'open' && (a.closed ?? '') >= sinceDay);
  const answered = (data.questions ?? []).filter((q) => q.status === 'answered' && (q.closed ?? '') >= sinceDay);
  const head = `**Since you last spoke here (${since.slice(0, 16).replace('T', ' ')} UTC)**`;
  if (!made.length && !replaced.length && !mine.length && !closed.length && !answered.length)
    return `${head}\nNothing changed: no decision made or replaced, no action item given to you or closed, no question answered.`;
  const lines = [head];
  const section = (title: string, items: string[]) => {
    if (items.length) lines.push('', `**${title}**`, ...items);
  };
  section(
    'Decisions made',
    made.map((d) => decisionLine(d, statusWords(statusAsOf(d)), links)),
  );
  section(
    'Decisions replaced',
    replaced.map((d) => {
      const by = byId.get(d.supersededBy!);
      const link = links.get(d.supersededBy!);
      return `- ~~\`${d.id}\` ${oneLine(d.text)}~~ → \`${d.supersededBy}\`${by ? ` ${oneLine(by.text, 80)}` : ''}${link ? ` — ${link}` : ''}`;
    }),
  );
  section(
    'Action items given to you',
    mine.map((a) => `- \`${a.id}\` ${oneLine(a.text)}${a.due ? `, due ${a.due}` : ''}${links.get(a.decisionId) ? ` — ${links.get(a.decisionId)}` : ''}`),
  );
  section(
    'Action items closed',
    closed.map(
      (a) => `- \`${a.id}\` ${oneLine(a.text)} — ${a.status === 'done' ? `done (${a.closedBy ?? 'closed'})` : (a.closedBy ?? 'dropped')}, ${a.closed}`,
    ),
  );
  section(
    'Questions answered',
    answered.map(
      (q) =>
        `- \`${q.id}\` ${oneLine(q.text, 100)} → ${oneLine(q.answer ?? '', 120)}${links.get(q.closedBy?.replace(/^condensation /, '') ?? '') ? ` — ${links.get(q.closedBy!.replace(/^condensation /, ''))}` : ''}`,
    ),
  );
  return lines.join('\n');
}
