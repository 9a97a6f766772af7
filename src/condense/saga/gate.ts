import type { TranscriptMessage } from '../condensation/types';

/**
 * The automatic-trigger gate (archive, lock, sweep, resolved tag): automatic condensations must
 * not flood a server, so they only consider real discussions that happened while the bot was
 * there. Explicit requests (📝, /condense, /resolve) never pass through here.
 */
export interface AutoGateInput {
  /** Human messages since the conversation's last condensation (see messagesSince). */
  humanSinceLast: TranscriptMessage[];
  /** When the thread was archived/locked/tagged; undefined when unknown (treated as now). */
  archivedAt?: Date;
  /** When the Secretary first ran in the channel (ledger.firstRunAt). */
  botFirstRanAt?: Date;
  minMessages?: number;
  minPeople?: number;
}

export type GateVerdict = { ok: true } | { ok: false; reason: string };

export const AUTO_MIN_MESSAGES = 6;
export const AUTO_MIN_PEOPLE = 2;

export function autoGate(inp: AutoGateInput): GateVerdict {
  const minMessages = inp.minMessages ?? AUTO_MIN_MESSAGES;
  const minPeople = inp.minPeople ?? AUTO_MIN_PEOPLE;
  if (!inp.botFirstRanAt) return { ok: false, reason: 'the bot has no record of when it first ran in this channel' };
  if (inp.archivedAt && inp.archivedAt.getTime() < inp.botFirstRanAt.getTime()) {
    return { ok: false, reason: 'archived before the bot first ran in this channel' };
  }
  const n = inp.humanSinceLast.length;
  if (n < minMessages) return { ok: false, reason: `only ${n} human message${n === 1 ? '' : 's'} since the last condensation (needs ${minMessages})` };
  const people = new Set(inp.humanSinceLast.map((m) => m.authorId)).size;
  if (people < minPeople) return { ok: false, reason: `only ${people} ${people === 1 ? 'person' : 'people'} took part (needs ${minPeople})` };
  return { ok: true };
}
