import type { LogRecord } from './conversation';

type MessageRecord = Extract<LogRecord, { type: 'message' }>;

/** What a conversation's log says is still owed after a restart. */
export interface OpenMentions {
  /** The newest message id the log has seen (people's messages, and those settled unseen), or null for an empty log. */
  lastSeenId: string | null;
  /** Ids of every message in the log, so history read from Discord is not handled twice. */
  logged: Set<string>;
  /**
   * Messages that spoke to the bot and were never settled (no reply sent, none seen, not deleted),
   * oldest first, each with its latest words, and the unaddressed messages logged after the last
   * settled reply as context for them.
   */
  open: MessageRecord[];
  context: MessageRecord[];
}

/** Snowflakes compared as numbers (they are decimal strings of different lengths). */
export function snowflakeOrder(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Pure: reads the log's records (oldest first) and says which addressed messages were never
 * answered. Messages logged before this record existed carry no `addressed` flag and so are never
 * owed: an upgrade does not answer a channel's whole past.
 */
export function openMentions(records: unknown[]): OpenMentions {
  const messages = new Map<string, MessageRecord>();
  const settled = new Set<string>();
  const seen = new Set<string>();
  let lastSeenId: string | null = null;
  let lastSettled: string | null = null;
  for (const r of records) {
    if (!isRecord(r)) continue;
    if (r.type === 'message' && typeof r.id === 'string' && typeof r.content === 'string') {
      messages.set(r.id, { ...(r as MessageRecord) });
      seen.add(r.id);
      if (!lastSeenId || snowflakeOrder(r.id, lastSeenId) > 0) lastSeenId = r.id;
    } else if (r.type === 'edit' && typeof r.id === 'string' && typeof r.content === 'string') {
      const m = messages.get(r.id);
      if (m) m.content = r.content;
    } else if (r.type === 'delete' && typeof r.id === 'string') {
      settled.add(r.id);
      messages.delete(r.id);
    } else if (r.type === 'answered' && Array.isArray(r.ids)) {
      for (const id of r.ids) {
        if (typeof id !== 'string') continue;
        settled.add(id);
        // Settled without a message line (missed while down, past the bound): seen all the same.
        seen.add(id);
        if (!lastSeenId || snowflakeOrder(id, lastSeenId) > 0) lastSeenId = id;
        if (!lastSettled || snowflakeOrder(id, lastSettled) > 0) lastSettled = id;
      }
    }
  }
  const all = [...messages.values()].sort((a, b) => snowflakeOrder(a.id, b.id));
  const open = all.filter((m) => m.addressed === true && !settled.has(m.id));
  const context = open.length
    ? all.filter(
        (m) =>
          m.addressed !== true &&
          !settled.has(m.id) &&
          (!lastSettled || snowflakeOrder(m.id, lastSettled) > 0) &&
          snowflakeOrder(m.id, open[open.length - 1].id) < 0,
      )
    : [];
  return { lastSeenId, logged: seen, open, context };
}

function isRecord(v: unknown): v is Record<string, unknown> & { type?: unknown } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
