import type { RecalledLine } from '../chat/replyRecall';

/**
 * A channel's recall health, from its log.jsonl alone (issue 41 §4): how often recall injected or
 * abstained over the last 7 and 30 days, the lines it injected most often, and the last replies
 * with what each got and why. Pure: records in (the parsed lines of the log's tail, any shape),
 * figures out. A line of another shape, a record from before replies recorded recall (read as
 * "unknown") or a field of the wrong type never throws: the log is the bot's, but a person or a
 * crash may have left anything in it.
 */

export type Outcome = 'injected' | 'abstained' | 'unknown';

export interface WindowFigures {
  days: number;
  replies: number;
  injected: number;
  abstained: number;
  /** Replies logged before they recorded what recall did. */
  unknown: number;
}

export interface TopLine extends RecalledLine {
  count: number;
}

export interface RecentMessage {
  author: string;
  /** Its first characters; empty when deleted or not in the part of the log read. */
  text: string;
  deleted?: boolean;
  /** Not in the part of the log read (the window was cut before it). */
  missing?: boolean;
}

export interface RecentReply {
  at: string;
  messages: RecentMessage[];
  outcome: Outcome;
  lines: RecalledLine[];
  /** The gate that kept recall silent, as the log wrote it; absent when it injected or was not recorded. */
  silence?: string;
}

export interface RecallHealth {
  windows: WindowFigures[];
  /** Over the longest window, most injected first. */
  top: TopLine[];
  /** Newest first. */
  recent: RecentReply[];
  /** The log was longer than what was read: the figures start at `since`. */
  cut: boolean;
  since?: string;
}

export const WINDOW_DAYS = [7, 30];
/** What fits a glance: the five lines a team would check first, and the last twenty replies. */
export const TOP_LINES = 5;
export const RECENT_REPLIES = 20;
/** A message's first characters on a row, as long as a recorded line's (chat/replyRecall.ts). */
const MESSAGE_CHARS = 120;
/** Messages shown per reply: a reply to a burst answers several. */
const MESSAGES_PER_REPLY = 3;

const DAY_MS = 86_400_000;

interface Reply {
  at: string;
  t: number;
  ids: string[];
  outcome: Outcome;
  lines: RecalledLine[];
  silence?: string;
}

export function recallHealth(records: readonly unknown[], o: { now: Date; cut: boolean }): RecallHealth {
  const replies: Reply[] = [];
  const messages = new Map<string, RecentMessage>();
  let since: string | undefined;
  for (const r of records) {
    if (!isObject(r)) continue;
    const at = str(r.at);
    if (since === undefined && at && !Number.isNaN(Date.parse(at))) since = at;
    const id = str(r.id);
    if (r.type === 'message' && id) {
      const author = isObject(r.author) ? str(r.author.name) : '';
      messages.set(id, { author: clip(author, 60), text: clip(str(r.content), MESSAGE_CHARS) });
    } else if (r.type === 'edit' && id) {
      const m = messages.get(id);
      if (m && !m.deleted) m.text = clip(str(r.content), MESSAGE_CHARS);
    } else if (r.type === 'delete' && id) {
      // A deleted message leaves the conversation: the page does not show it again.
      messages.set(id, { author: messages.get(id)?.author ?? '', text: '', deleted: true });
    } else if (r.type === 'reply') {
      replies.push(readReply(r, at));
    }
  }

  const now = o.now.getTime();
  const windows = WINDOW_DAYS.map((days) => {
    const w: WindowFigures = { days, replies: 0, injected: 0, abstained: 0, unknown: 0 };
    for (const r of replies) {
      if (!(r.t > now - days * DAY_MS)) continue;
      w.replies++;
      w[r.outcome]++;
    }
    return w;
  });

  const longest = Math.max(...WINDOW_DAYS) * DAY_MS;
  const counts = new Map<string, TopLine & { last: number }>();
  replies.forEach((r, i) => {
    if (!(r.t > now - longest)) return;
    for (const l of r.lines) {
      const key = `${l.file}\u0000${l.id ?? ''}\u0000${l.id ? '' : (l.text ?? '')}`;
      const c = counts.get(key);
      if (c) {
        c.count++;
        c.last = i;
      } else counts.set(key, { ...l, count: 1, last: i });
    }
  });
  const top = [...counts.values()]
    .sort((a, b) => b.count - a.count || b.last - a.last)
    .slice(0, TOP_LINES)
    .map(({ last: _last, ...l }) => l);

  const recent = replies
    .slice(-RECENT_REPLIES)
    .reverse()
    .map((r): RecentReply => ({
      at: r.at,
      messages: r.ids.slice(0, MESSAGES_PER_REPLY).map((id) => messages.get(id) ?? { author: '', text: '', missing: true }),
      outcome: r.outcome,
      lines: r.lines,
      ...(r.silence ? { silence: r.silence } : {}),
    }));
  return { windows, top, recent, cut: o.cut, ...(o.cut && since ? { since } : {}) };
}

function readReply(r: Record<string, unknown>, at: string): Reply {
  const t = Date.parse(at);
  const ids = Array.isArray(r.inReplyTo) ? r.inReplyTo.filter((x): x is string => typeof x === 'string') : [];
  const base = { at: clip(at, 40), t, ids };
  if (!isObject(r.recall)) return { ...base, outcome: 'unknown', lines: [] };
  const lines = (Array.isArray(r.recall.lines) ? r.recall.lines : []).flatMap((l): RecalledLine[] => {
    if (!isObject(l) || typeof l.file !== 'string') return [];
    const file = clip(l.file, 200);
    if (typeof l.id === 'string') return [{ file, id: clip(l.id, 40) }];
    return typeof l.text === 'string' ? [{ file, text: clip(l.text, MESSAGE_CHARS) }] : [];
  });
  if (lines.length) return { ...base, outcome: 'injected', lines };
  const silence = typeof r.recall.silence === 'string' ? clip(r.recall.silence, 40) : undefined;
  return { ...base, outcome: 'abstained', lines: [], ...(silence ? { silence } : {}) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function clip(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
