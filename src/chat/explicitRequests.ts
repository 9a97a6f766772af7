import { normalizeForCompare, parseMemory } from '../memory/entries';
import { ENTRY_ID, MAX_ENTRY_CHARS } from '../memory/grammar';
import type { MemoryOp } from '../memory/memoryOps';

/**
 * "remember that …" and "forget …" from a person, applied at once rather than at the next upkeep.
 * Pure: given the message and the current MEMORY.md, the operations to apply and, when nothing can
 * be done, a note saying why (so the reply never leaves the person guessing).
 *
 * Rules (issue 15): a question is not an instruction ("remember when we moved to Postgres?"); a
 * request anywhere in the message counts ("Thanks! Please remember that …"): it opens a sentence or
 * a clause of one, whatever leads in ("hi, remember that …", "Thanks Ana — note: …", issue 40),
 * while "remember" inside a clause is overheard ("we should all remember that …"); a forget that
 * matches no entry, or several, changes nothing and says so, naming the candidates; a hand-written
 * line without an id can be forgotten by its words.
 */
export interface ExplicitRequest {
  ops: MemoryOp[];
  /** Why nothing was done for a request, in the reply's words. */
  notes: string[];
  /** Whether the message asked to forget something (the caller applies the admin rule). */
  forgetAsked: boolean;
}

/** Openers that do not change what follows: "ok, remember that …", "hey, please note: …". */
const FILLER = /^(?:(?:ok(?:ay)?|so|and|also|hey|great|cool|thanks|thank you|alright|right|oh|btw|fyi|one more thing)\b[\s,:;!.-]*)+/i;
/** A polite request phrased as a question is still a request: "could you remember that …?". */
const POLITE = /^(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+|pls\s+|kindly\s+)?/i;
/** "remember when/what/how …" asks the bot to recall, it does not ask it to store. */
const RECALL_QUESTION = /^(?:when|what|how|why|who|whom|where|which|whether|if)\b/i;
const REMEMBER = /^(remember|note)\b(?:\s+down)?(\s+that\b|\s*:)?[\s,]*([\s\S]+)$/i;
/** "don't forget that …" asks to keep a fact ("don't forget to …" asks for a chore, and is left alone). */
const DONT_FORGET = /^(?:do\s*n[o'’]?t|never)\s+forget\b(\s+that\b|\s*:)?[\s,]*([\s\S]+)$/i;
/**
 * Whether a message could ask to forget (every forget request starts a sentence with the word): who
 * may make the bot forget is worked out only for these (a member's permissions come from every role).
 */
export function mayAskToForget(message: string): boolean {
  return /\bforget\b/i.test(message);
}

const FORGET = /^forget\b(?:\s+(?:that|about|the entry|entry)\b)?[\s,:]*([\s\S]+)$/i;
const MIN_REMEMBER = 8;
const MIN_FORGET = 4;
/**
 * The longest fact a "remember that …" may store: one entry's limit, as for consolidation. A longer
 * entry would be written but recall could never bring it back whole, so it is refused with a reason
 * rather than "Saved" (issue 15 §1).
 */
export const MAX_REMEMBER = MAX_ENTRY_CHARS;

/** Where a clause starts inside a sentence: after a comma, semicolon, colon or dash. */
const CLAUSE_BREAK = /[,;:]\s+|\s+[—–-]+\s+/g;

/** A request word near a clause's start (after an opener and "could you please"). */
const REQUEST_WORD = /\b(?:remember|note|forget)\b/i;

/**
 * Each clause start's rest of the sentence, first to last: a request may open any of them. Only
 * those with a request word close by are cut out, so a long message full of commas stays linear.
 */
function* clauseTails(sentence: string): Generator<string> {
  yield sentence;
  for (const m of sentence.matchAll(CLAUSE_BREAK)) {
    const at = m.index + m[0].length;
    if (REQUEST_WORD.test(sentence.slice(at, at + 80))) yield sentence.slice(at);
  }
}

/** Sentences (a dot inside "v1.2" or "ops/vpn.md" does not end one), each with whether it asks. */
function sentences(text: string): { text: string; question: boolean }[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) => ({ text: t, question: /\?$/.test(t) }));
}

export function explicitMemoryRequest(message: string, memory: string, source: string): ExplicitRequest {
  // The mention that addressed the bot ("<@123>", or "@Minutes" once rendered) is not part of it.
  const text = message
    .replace(/<@!?&?\d+>/g, '')
    .trim()
    .replace(/^@[\w.-]+[,:]?\s+/, '');
  const result: ExplicitRequest = { ops: [], notes: [], forgetAsked: false };
  for (const s of sentences(text)) {
    // The first clause that opens with a request word is the sentence's request, good or not.
    for (const tail of clauseTails(s.text)) if (clauseRequest(tail, s.question, memory, source, result)) break;
  }
  return result;
}

/** The request that opens `clause` (it runs to the sentence's end), added to `result`; whether one did. */
function clauseRequest(clause: string, question: boolean, memory: string, source: string, result: ExplicitRequest): boolean {
  const stripped = clause.replace(FILLER, '');
  const polite = POLITE.exec(stripped)![0];
  const body = stripped.slice(polite.length);
  const dont = DONT_FORGET.exec(body);
  const rem = dont ? ([dont[0], 'remember', dont[1], dont[2]] as const) : REMEMBER.exec(body);
  const fg = rem ? null : FORGET.exec(body);
  if (!rem && !fg) return false;
  // A question is not an instruction, unless it is a polite request ("could you …?").
  if (question && !/\byou\b/i.test(polite)) return true;
  if (rem) {
    const [, verb, link, rest] = rem;
    // "note" alone is a typo as often as a request ("note sure why …"): it needs "that" or ":".
    if (/^note$/i.test(verb) && !link) return true;
    if (!link && RECALL_QUESTION.test(rest)) return true;
    if (dont && !link && /^(?:to|about)\b/i.test(rest)) return true;
    const fact = rest
      .trim()
      .replace(/[.!?]+$/, '')
      .trim();
    if (fact.length > MAX_REMEMBER) {
      result.notes.push(
        `(Not saved to memory: that is ${fact.length} characters and one entry holds at most ${MAX_REMEMBER}; say it in shorter facts, one "remember that …" each.)`,
      );
      return true;
    }
    if (fact.length >= MIN_REMEMBER) result.ops.push({ op: 'add', text: fact, source, explicit: true, reason: 'asked to remember' });
    return true;
  }
  const what = fg![1]
    .trim()
    .replace(/[.!?]+$/, '')
    .trim();
  if (what.length < MIN_FORGET) return true;
  result.forgetAsked = true;
  forgetRequest(what, memory, result);
  return true;
}

/** The entry a "forget …" names: by id, or the one entry whose words it shares. */
function forgetRequest(what: string, memory: string, result: ExplicitRequest): void {
  if (ENTRY_ID.test(what)) {
    result.ops.push({ op: 'forget', id: what, reason: 'asked to forget' });
    return;
  }
  const want = new Set(
    normalizeForCompare(what)
      .split(' ')
      .filter((w) => w.length > 2),
  );
  const matches: { id?: string; text: string; score: number }[] = [];
  for (const l of parseMemory(memory)) {
    if (l.kind !== 'entry' || l.superseded) continue;
    const words = new Set(
      normalizeForCompare(l.text)
        .split(' ')
        .filter((w) => w.length > 2),
    );
    let shared = 0;
    for (const w of want) if (words.has(w)) shared++;
    const score = want.size ? shared / want.size : 0;
    if (score >= 0.6) matches.push({ id: l.id, text: l.text, score });
  }
  matches.sort((a, b) => b.score - a.score);
  // One clear best: it shares more of the request's words than any other match.
  const pick = matches.length === 1 || (matches.length > 1 && matches[0].score > matches[1].score) ? matches[0] : undefined;
  if (pick) {
    result.ops.push(pick.id ? { op: 'forget', id: pick.id, reason: 'asked to forget' } : { op: 'forget', id: '', text: pick.text, reason: 'asked to forget' });
    return;
  }
  if (!matches.length) {
    result.notes.push(`(Nothing forgotten: no memory entry matches "${what}". /memory lists the entries; "forget <id>" removes one.)`);
    return;
  }
  const listed = matches
    .slice(0, 5)
    .map((m) => `${m.id ? `[${m.id}] ` : ''}${m.text}`)
    .join('; ');
  const first = matches.find((m) => m.id)?.id;
  result.notes.push(`(Nothing forgotten: ${matches.length} entries match "${what}": ${listed}. Which one? Say "forget ${first ?? '<its words>'}".)`);
}
