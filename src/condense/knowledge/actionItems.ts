import crypto from 'node:crypto';
import { z } from 'zod';

/**
 * Action items a condensation names, tracked until they are done. Kept in the channel's
 * `.minutes/context.json` beside the decisions (CONTEXT.md lists the open ones), opened by a
 * condensation, closed by `/actions done <id>` (the owner or an admin), and dropped when the
 * decision they follow from is replaced (a follow-up of a decision nobody holds any more is not
 * work to do; the new condensation names its own). All pure.
 */
export const ActionItem = z.looseObject({
  /** `a-` + 6 hex of the decision and the item's text: a resumed condensation upserts, never duplicates. */
  id: z.string(),
  text: z.string(),
  /** As written ("bo"); never turned into a mention. */
  owner: z.string().optional(),
  /** The owner's Discord user id, when the name was one of the discussion's authors': who may close it. */
  ownerId: z.string().optional(),
  /** YYYY-MM-DD, when the item said when. */
  due: z.string().optional(),
  decisionId: z.string(),
  /** The condensation file the item came from. */
  file: z.string().optional(),
  opened: z.string(),
  status: z.enum(['open', 'done', 'dropped']),
  closed: z.string().optional(),
  /** Who closed it, or what replaced its decision. */
  closedBy: z.string().optional(),
  /** The MEMORY.md entry that records it as an open loop. */
  memoryId: z.string().optional(),
});
export type ActionItem = z.infer<typeof ActionItem>;

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MS_DAY = 86_400_000;

export function actionIdFor(decisionId: string, text: string): string {
  return `a-${crypto.createHash('sha256').update(`${decisionId}\u0000${text.toLowerCase()}`).digest('hex').slice(0, 6)}`;
}

/**
 * "bo: update the runbook by Friday" → owner "bo", text "update the runbook by Friday", due the next
 * Friday after `date`. Owners are a short name before a colon; dates are ISO dates after "by" or
 * "due", a weekday, "tomorrow" or "end of week".
 */
export function parseActionItem(raw: string, date: string): { text: string; owner?: string; due?: string } {
  const { who: owner, text } = splitWho(raw);
  return { text, ...(owner ? { owner } : {}), ...dueOf(text, date) };
}

/**
 * "bo: text" → who "bo" and the text; a line without a short name before a colon (or with a label
 * such as "TODO:" there) is all text. Names stay as written: never turned into a mention.
 */
export function splitWho(raw: string): { who?: string; text: string } {
  const line = raw.replace(/\s+/g, ' ').trim();
  const m = /^([\p{L}\p{N}._' -]{1,32}?)\s*:\s+(.+)$/u.exec(line);
  const who = m && !/^(todo|note|action|next|question|q)$/i.test(m[1].trim()) ? m[1].trim() : undefined;
  return who ? { who, text: m![2] } : { text: line };
}

function dueOf(text: string, date: string): { due?: string } {
  const iso = /\b(?:by|due|before|until)\s+(\d{4}-\d{2}-\d{2})\b/i.exec(text);
  if (iso && !Number.isNaN(Date.parse(`${iso[1]}T00:00:00Z`))) return { due: iso[1] };
  const base = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(base)) return {};
  const day = (n: number) => new Date(base + n * MS_DAY).toISOString().slice(0, 10);
  if (/\b(?:by|due)\s+tomorrow\b/i.test(text)) return { due: day(1) };
  const wd = new RegExp(`\\b(?:by|due|on|before)\\s+(?:next\\s+)?(${WEEKDAYS.join('|')})\\b`, 'i').exec(text);
  if (wd) {
    const target = WEEKDAYS.indexOf(wd[1].toLowerCase());
    const today = new Date(base).getUTCDay();
    return { due: day((target - today + 7) % 7 || 7) };
  }
  if (/\b(?:by|before)\s+(?:the\s+)?end of (?:the\s+)?week\b/i.test(text)) return { due: day((5 - new Date(base).getUTCDay() + 7) % 7 || 7) };
  return {};
}

export interface FoldActions {
  decisionId: string;
  file?: string;
  date: string;
  /** The condensation's action items as the model wrote them. */
  raw: string[];
  /** Decisions this condensation replaces: their open items are dropped. */
  supersedes: string[];
  /** The discussion's authors known by id (CondensationFacts.authors). */
  authors?: { id: string; name: string }[];
}

/**
 * The user id of the one author a name (as a condensation wrote it) is; undefined when no author,
 * or more than one, went by that name: then nobody is taken for the person named.
 */
export function authorIdOf(written: string | undefined, authors: { id: string; name: string }[] | undefined): string | undefined {
  const ids = new Set((authors ?? []).filter((a) => sameName(written, [a.name])).map((a) => a.id));
  return ids.size === 1 ? [...ids][0] : undefined;
}

/**
 * Whether the member `userId` is the person an item or question names, by the user id recorded
 * when it was filed. A display name is not proof (any member can take another's), so an item
 * without a recorded id (filed before ids were kept, or naming someone who was not in the
 * discussion) names nobody: an admin closes it.
 */
export function isNamedMember(recordedId: string | undefined, userId: string): boolean {
  return recordedId !== undefined && recordedId === userId;
}

/** Upserts this condensation's items and drops the open ones of replaced decisions. */
export function foldActionItems(prev: ActionItem[], f: FoldActions): { items: ActionItem[]; dropped: ActionItem[] } {
  const items = prev.map((i) => ({ ...i }));
  for (const raw of f.raw) {
    const parsed = parseActionItem(raw, f.date);
    if (!parsed.text || /^none\.?$/i.test(parsed.text)) continue;
    const id = actionIdFor(f.decisionId, parsed.text);
    if (items.some((i) => i.id === id)) continue;
    const ownerId = authorIdOf(parsed.owner, f.authors);
    items.push({
      id,
      ...parsed,
      ...(ownerId ? { ownerId } : {}),
      decisionId: f.decisionId,
      ...(f.file ? { file: f.file } : {}),
      opened: f.date,
      status: 'open',
    });
  }
  const dropped: ActionItem[] = [];
  for (const i of items) {
    if (i.status !== 'open' || !f.supersedes.includes(i.decisionId) || i.decisionId === f.decisionId) continue;
    Object.assign(i, { status: 'dropped', closed: f.date, closedBy: `its decision was replaced by ${f.decisionId}` });
    dropped.push(i);
  }
  return { items, dropped };
}

/** Items open in `prev` that `next` dropped (their decision was replaced). */
export function droppedNow(prev: { actions?: ActionItem[] }, next: { actions?: ActionItem[] }): ActionItem[] {
  const wasOpen = new Set(openItems(prev.actions).map((i) => i.id));
  return (next.actions ?? []).filter((i) => i.status === 'dropped' && wasOpen.has(i.id));
}

export function openItems(items: ActionItem[] | undefined): ActionItem[] {
  return (items ?? []).filter((i) => i.status === 'open');
}

/**
 * ", due 2026-12-01" after an item's words, unless the words already say that date ("… due
 * 2026-12-01"): a date the words only imply ("by Friday") is spelled out, a written one not twice.
 */
export function dueSuffix(i: { text: string; due?: string }): string {
  return i.due && !i.text.includes(i.due) ? `, due ${i.due}` : '';
}

/** One line per open item, for CONTEXT.md and `/actions`. */
export function formatItem(i: ActionItem): string {
  const who = i.owner ? ` — ${i.owner}` : '';
  return `\`${i.id}\` ${i.text.replace(/\s+/g, ' ')}${who}${dueSuffix(i)} _(from ${i.opened})_`;
}

/** Closes an open item; the reason when it cannot. */
export function closeItem(items: ActionItem[], id: string, who: string, date: string): { items: ActionItem[]; closed?: ActionItem; why?: string } {
  const next = items.map((i) => ({ ...i }));
  const it = next.find((i) => i.id === id.trim());
  if (!it) return { items, why: `there is no action item ${id.trim()} in this channel (see /actions)` };
  if (it.status !== 'open') return { items, why: `${it.id} is already ${it.status === 'done' ? 'done' : 'closed'}` };
  Object.assign(it, { status: 'done', closed: date, closedBy: who });
  return { items: next, closed: it };
}

/** Open items older than `days` (by the day they were opened). */
export function staleItems(items: ActionItem[] | undefined, now: Date, days: number): ActionItem[] {
  const limit = now.getTime() - days * MS_DAY;
  return openItems(items).filter((i) => Date.parse(`${i.opened}T00:00:00Z`) < limit);
}

/** Whether one of `names` (a member's display or user name) is `written` (a name as a condensation wrote it). */
export function sameName(written: string | undefined, names: string[]): boolean {
  if (!written) return false;
  const o = written.toLowerCase().replace(/^@/, '');
  return names.some((n) => n.toLowerCase() === o);
}
