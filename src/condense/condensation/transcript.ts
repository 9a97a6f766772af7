import crypto from 'node:crypto';
import { utcDate } from '../../memory/entries';
import { isSnowflake } from '../../memory/paths';
import { condensationMarkIn } from '../../shared/markers';
import type { CondensationFacts, TranscriptMessage } from './types';

/** Where our own posts and injected blocks are recognised, so they never feed a condensation. */
const RECALL_BLOCK = /<recalled_memory\b[^>]*>[\s\S]*?(?:<\/recalled_memory>|$)/gi;
export const CONDENSATION_HEADING = /^\s*##\s*📝\s*Condensation:/u;
export const MARKER_PREFIX = 'minutes:cond:';

/**
 * The human part of a discussion: bots' messages dropped, recall blocks cut out of what people
 * quoted, our condensation posts dropped even when relayed by a person, empty messages dropped.
 */
export function humanMessages(messages: TranscriptMessage[]): TranscriptMessage[] {
  const out: TranscriptMessage[] = [];
  for (const m of messages) {
    if (m.isBot) continue;
    if (CONDENSATION_HEADING.test(m.content) || condensationMarkIn(m.content)) continue;
    const content = m.content.replace(RECALL_BLOCK, '').trim();
    if (!content) continue;
    out.push({ ...m, content });
  }
  return out;
}

/**
 * The ledger key: a hash of the human messages' ids and content. Bot posts (including our own
 * condensation) never change it, so the same discussion maps to one key however often it is asked.
 */
export function ledgerKey(human: TranscriptMessage[]): string {
  const h = crypto.createHash('sha256');
  for (const m of human) h.update(`${m.id}\u0000${m.content}\u0001`);
  return h.digest('hex');
}

/** Authors in order of first appearance, one per author id. */
export function participantsOf(human: TranscriptMessage[]): string[] {
  const seen = new Map<string, string>();
  for (const m of human) if (!seen.has(m.authorId)) seen.set(m.authorId, m.authorName);
  return [...seen.values()];
}

/** Authors with a Discord user id, in order of first appearance (a console's or a log's name-only author is not one). */
export function authorsOf(human: TranscriptMessage[]): { id: string; name: string }[] {
  const seen = new Map<string, string>();
  for (const m of human) if (isSnowflake(m.authorId) && !seen.has(m.authorId)) seen.set(m.authorId, m.authorName);
  return [...seen].map(([id, name]) => ({ id, name }));
}

export function factsOf(human: TranscriptMessage[], names: { channelName: string; threadName?: string }): CondensationFacts {
  const first = human[0];
  const last = human[human.length - 1];
  const authors = authorsOf(human);
  return {
    date: utcDate(last.at),
    channelName: names.channelName,
    threadName: names.threadName,
    participants: participantsOf(human),
    ...(authors.length ? { authors } : {}),
    firstMessageId: first.id,
    lastMessageId: last.id,
    messageCount: human.length,
  };
}

/** One line per message for the model: `[2026-11-21 09:00] al: text`. */
export function formatMessage(m: TranscriptMessage): string {
  const at = m.at.toISOString().slice(0, 16).replace('T', ' ');
  return `[${at}] ${m.authorName}: ${m.content}`;
}

/** Splits the transcript at message boundaries into pieces of at most `maxChars` (a huge message is cut). */
export function chunkTranscript(human: TranscriptMessage[], maxChars: number): string[] {
  const chunks: string[] = [];
  let cur: string[] = [];
  let used = 0;
  for (const m of human) {
    let line = formatMessage(m);
    if (line.length > maxChars) line = `${line.slice(0, maxChars - 1)}…`;
    if (used + line.length + 1 > maxChars && cur.length) {
      chunks.push(cur.join('\n'));
      cur = [];
      used = 0;
    }
    cur.push(line);
    used += line.length + 1;
  }
  if (cur.length) chunks.push(cur.join('\n'));
  return chunks;
}

/**
 * The messages after the last condensed message of this conversation (all of them when none was
 * condensed or the id is no longer in the list): what the automatic gate counts.
 */
export function messagesSince(human: TranscriptMessage[], lastCondensedId: string | undefined): TranscriptMessage[] {
  if (!lastCondensedId) return human;
  const i = human.findIndex((m) => m.id === lastCondensedId);
  if (i >= 0) return human.slice(i + 1);
  // Snowflakes grow with time: when the exact message is gone (deleted), compare numerically.
  if (/^\d+$/.test(lastCondensedId)) {
    const last = BigInt(lastCondensedId);
    return human.filter((m) => /^\d+$/.test(m.id) && BigInt(m.id) > last);
  }
  return human;
}
