import crypto from 'node:crypto';
import { z } from 'zod';
import { normalizeForCompare } from '../../memory/entries';
import { authorIdOf, splitWho } from './actionItems';

/**
 * Questions a discussion left open, tracked like action items: kept in `.minutes/context.json`
 * (CONTEXT.md lists the open ones), opened by a condensation, answered by a later one (the model
 * names the id it was shown and the answer) or by hand (`/questions answer:<id>`, the asker or an
 * admin), and dropped with their decision when it is replaced, as its action items are. All pure.
 */
export const OpenQuestion = z.looseObject({
  /** `q-` + 6 hex of the decision and the question: a resumed condensation upserts, never duplicates. */
  id: z.string(),
  text: z.string(),
  /** Who asked, as written ("al"); never turned into a mention. */
  askedBy: z.string().optional(),
  /** The asker's Discord user id, when the name was one of the discussion's authors': who may answer it by hand. */
  askedById: z.string().optional(),
  /** The condensation (its decision id) that found the question open. */
  decisionId: z.string(),
  /** That condensation's file. */
  file: z.string().optional(),
  opened: z.string(),
  status: z.enum(['open', 'answered', 'dropped']),
  closed: z.string().optional(),
  /** How it was answered, in a sentence. */
  answer: z.string().optional(),
  /** Who answered it (a person, or "condensation d-…"), or what replaced its decision. */
  closedBy: z.string().optional(),
  /** The MEMORY.md entry that records it as an open loop. */
  memoryId: z.string().optional(),
});
export type OpenQuestion = z.infer<typeof OpenQuestion>;

const MS_DAY = 86_400_000;

export function questionIdFor(decisionId: string, text: string): string {
  return `q-${crypto.createHash('sha256').update(`${decisionId}\u0000${text.toLowerCase()}`).digest('hex').slice(0, 6)}`;
}

export interface FoldQuestions {
  decisionId: string;
  file?: string;
  date: string;
  /** The condensation's open questions as the model wrote them ("al: which region?"). */
  raw: string[];
  /** Open questions it answered (ids it was shown). */
  answered: { id: string; answer: string }[];
  /** Decisions this condensation replaces: their open questions are dropped. */
  supersedes: string[];
  /** The discussion's authors known by id (CondensationFacts.authors). */
  authors?: { id: string; name: string }[];
}

/**
 * Upserts this condensation's questions, answers the ones it answered and drops the open ones of
 * replaced decisions (an answer wins over a drop). A question already open in the channel, in the
 * same words, is not opened a second time.
 */
export function foldQuestions(prev: OpenQuestion[], f: FoldQuestions): OpenQuestion[] {
  const qs = prev.map((q) => ({ ...q }));
  for (const raw of f.raw) {
    const { who, text } = splitWho(raw);
    if (!text || /^none\.?$/i.test(text)) continue;
    const id = questionIdFor(f.decisionId, text);
    const norm = normalizeForCompare(text);
    if (qs.some((q) => q.id === id || (q.status === 'open' && normalizeForCompare(q.text) === norm))) continue;
    const askedById = authorIdOf(who, f.authors);
    qs.push({
      id,
      text,
      ...(who ? { askedBy: who } : {}),
      ...(askedById ? { askedById } : {}),
      decisionId: f.decisionId,
      ...(f.file ? { file: f.file } : {}),
      opened: f.date,
      status: 'open',
    });
  }
  for (const a of f.answered) {
    const q = qs.find((x) => x.id === a.id);
    // Answered again (a resumed run) or by hand meanwhile: the first answer stands.
    if (!q || q.status !== 'open') continue;
    Object.assign(q, { status: 'answered', closed: f.date, answer: a.answer, closedBy: `condensation ${f.decisionId}` });
  }
  for (const q of qs) {
    if (q.status !== 'open' || !f.supersedes.includes(q.decisionId) || q.decisionId === f.decisionId) continue;
    Object.assign(q, { status: 'dropped', closed: f.date, closedBy: `its decision was replaced by ${f.decisionId}` });
  }
  return qs;
}

/** Questions open in `prev` that `next` closed with this status. */
export function closedNow(prev: { questions?: OpenQuestion[] }, next: { questions?: OpenQuestion[] }, status: 'answered' | 'dropped'): OpenQuestion[] {
  const wasOpen = new Set(openQuestions(prev.questions).map((q) => q.id));
  return (next.questions ?? []).filter((q) => q.status === status && wasOpen.has(q.id));
}

export function openQuestions(qs: OpenQuestion[] | undefined): OpenQuestion[] {
  return (qs ?? []).filter((q) => q.status === 'open');
}

const flat = (s: string) => s.replace(/\s+/g, ' ').trim();

/** One line per open question, for CONTEXT.md and `/questions`. */
export function formatQuestion(q: OpenQuestion): string {
  return `\`${q.id}\` ${flat(q.text)}${q.askedBy ? ` — ${q.askedBy}` : ''} _(from ${q.opened})_`;
}

/** "q-1a2b3c “which region?” → eu-west-1": how a question was answered, in one line. */
export function formatAnswered(q: Pick<OpenQuestion, 'id' | 'text' | 'answer'>): string {
  return `${q.id} “${flat(q.text)}” → ${flat(q.answer ?? '')}`;
}

/** Answers an open question by hand; the reason when it cannot. */
export function answerQuestion(
  qs: OpenQuestion[],
  o: { id: string; answer: string; who: string; date: string },
): { questions: OpenQuestion[]; answered?: OpenQuestion; why?: string } {
  const next = qs.map((q) => ({ ...q }));
  const id = o.id.trim();
  const q = next.find((x) => x.id === id);
  if (!q) return { questions: qs, why: `there is no open question ${id} in this channel (see /questions)` };
  if (q.status !== 'open') return { questions: qs, why: `${q.id} is already ${q.status === 'answered' ? 'answered' : 'closed'}` };
  if (!flat(o.answer)) return { questions: qs, why: 'the answer is empty (give it as text:<answer>)' };
  Object.assign(q, { status: 'answered', closed: o.date, answer: flat(o.answer), closedBy: o.who });
  return { questions: next, answered: q };
}

/** Open questions older than `days` (by the day they were opened). */
export function staleQuestions(qs: OpenQuestion[] | undefined, now: Date, days: number): OpenQuestion[] {
  const limit = now.getTime() - days * MS_DAY;
  return openQuestions(qs).filter((q) => Date.parse(`${q.opened}T00:00:00Z`) < limit);
}
