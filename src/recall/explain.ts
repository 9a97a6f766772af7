import type { Index, Scored } from './types';
import type { RecallTuning } from './tuning';
import type { DenseView } from './vectors';
import type { ItemExplanation, MeaningExplanation, RecallExplanation, Silence, WordExplanation } from './explanation';
import { meaningOf } from './calibration';
import { bestCosine, meaningSilence } from './fusion';
import { termSet } from './pack';
import { isWeakToken, tokenize } from './tokenize';

/**
 * What the scorer (lexical.ts) records for an explanation as it decides, when the caller asked for
 * one: the values the decision used, never recomputed differently. The bot's turns never ask, so
 * they pay nothing but a few `if (trace)` tests.
 */
export interface ScoreTrace {
  words: { word: string; lines: number; evidence: number; rare: boolean }[];
  best: number;
  rareWord?: string;
  gate: boolean;
  /** The gate was opened by one rare word alone (FuseInput.rareWordOnly). */
  rareWordOnly: boolean;
  view?: DenseView;
  content: boolean;
  silence?: Silence;
  /** The injected lines, in the block's order (pack.ts fills it). */
  taken: Scored[];
}

export function newTrace(): ScoreTrace {
  return { words: [], best: 0, gate: false, rareWordOnly: false, content: false, taken: [] };
}

/** The explanation of one recall from its trace: pure. */
export function buildExplanation(t: ScoreTrace, index: Index, P: RecallTuning, query: string): RecallExplanation {
  const written = writtenForms(query);
  const words: WordExplanation[] = t.words.map((w) => ({
    word: w.word,
    written: written.get(w.word) ?? w.word,
    lines: w.lines,
    evidence: round(w.evidence),
    common: isWeakToken(w.word),
    rare: w.rare,
  }));
  const rareWord = t.rareWord ? { rareWord: written.get(t.rareWord) ?? t.rareWord } : {};
  const gate = { best: round(t.best), gateMin: P.gateMin, rareWordMin: P.rareWordMin, evidenceMin: P.evidenceMin, open: t.gate, ...rareWord };
  const meaning = t.view ? meaningOfView(t, P) : undefined;
  let silence = t.silence;
  // The scorer returns early for the meaning gates; the same function names the one that closed it.
  if (!silence && t.view && !t.taken.length)
    silence = meaningSilence({ lexicalGate: t.gate, rareWordOnly: t.rareWordOnly, view: t.view, content: t.content, tuning: P }, bestCosine(t.view.cos));
  if (!silence && !t.taken.length) silence = 'nothing-fits';
  const asked = new Set(t.words.filter((w) => w.lines > 0).map((w) => w.word));
  const cal = t.view?.calibration;
  const items: ItemExplanation[] = t.taken.map((s) => {
    const c = index.cands[s.id];
    const shared = Array.from(termSet(index, s.id)).filter((w) => asked.has(w));
    return {
      file: c.file,
      text: c.text,
      by: s.lexical > 0 ? 'words' : 'meaning',
      words: t.words.filter((w) => shared.includes(w.word)).map((w) => w.word),
      evidence: round(s.evidence),
      ...(s.semantic !== undefined && cal ? { meaning: round(meaningOf(cal, s.semantic)) } : {}),
    };
  });
  const opened = silence ? undefined : !t.gate ? 'meaning' : t.rareWordOnly ? 'rare-word' : 'words';
  return {
    ...(silence ? { silence } : {}),
    ...(opened ? { opened } : {}),
    words,
    gate,
    semantic: t.view ? 'used' : 'off',
    ...(meaning ? { meaning } : {}),
    items,
  };
}

function meaningOfView(t: ScoreTrace, P: RecallTuning): MeaningExplanation | undefined {
  const v = t.view!;
  const cal = v.calibration;
  if (!cal || Number.isNaN(v.chat)) return undefined;
  const best = bestCosine(v.cos);
  const bar = v.chatBar();
  return {
    best: best === -Infinity ? best : round(meaningOf(cal, best)),
    chat: round(meaningOf(cal, v.chat)),
    tech: round(meaningOf(cal, v.tech)),
    techGap: round(v.techGap()),
    ...(Number.isNaN(bar) ? {} : { chatBar: round(meaningOf(cal, bar)) }),
    content: t.content,
    mean: round(cal.mean),
    sd: round(cal.sd),
    floor: P.denseFloor,
    chatBarMargin: P.chatBarMargin,
    chatMargin: P.chatMargin,
    techMargin: P.techMargin,
    chatVeto: P.chatVeto,
    techVeto: P.techVeto,
    admit: P.denseAdmit,
  };
}

/** Each matched form's first word in the message as written ("database" for "databas"). */
function writtenForms(query: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const w of query
    .toLowerCase()
    .slice(0, 2_000)
    .match(/[\p{L}\p{N}]+/gu) ?? [])
    for (const t of tokenize(w)) if (!out.has(t)) out.set(t, w);
  return out;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
