import type { Index, Scored } from './types';
import type { RecallTuning } from './tuning';
import type { DenseView } from './vectors';
import { cosineAt } from './calibration';
import type { Silence } from './explanation';

/**
 * Words and meaning, one ranking. The lexical scorer (lexical.ts) finds entries that share specific
 * words with the message and decides, by its evidence gate, whether the message is about the
 * channel's memory at all; a sentence model adds entries that say the same thing in other words and
 * re-orders the rest by closeness of meaning.
 *
 * Fusion is a min-max-normalised weighted sum over the pool (the lexical shortlist plus the
 * `denseCandidates` most similar entries above `denseAdmit`): each side is scaled to 0–1 over the
 * pool, so neither scale dominates, and an entry with no vector yet keeps its lexical score alone.
 * Measured on LoCoMo (docs/benchmarks.md, "Recall with meaning"): reciprocal rank fusion gained
 * nothing there, a weighted sum did.
 *
 * Whether meaning may make recall speak is a property of the channel, not one number: a sentence
 * model scores every short, empty message close to every short line, and a channel whose lines all
 * look alike close to everything. So the message must beat what everyday chat scores against *this*
 * channel (`DenseView.chatBar`, from chat lines the product ships), be closer to the channel than to
 * any message about nothing in particular (the shipped null: everyday chat and generic technical
 * questions, so "regex to match an email address" stays silent in a young technical channel; the
 * technical comparison is made on what sets texts apart, `DenseView.techGap`), and carry a content
 * word. The same comparison withdraws a weak lexical match from a message that is
 * plainly generic ("cheers mate" against a channel that mentions a mate).
 */
export type DenseScorer = (index: Index) => DenseView | undefined;

export interface FuseInput {
  index: Index;
  /** Admitted lexical candidates, best first. */
  lexical: Scored[];
  lexicalGate: boolean;
  /** The gate was opened by one word rare in the language alone (the best line's evidence below gateMin). */
  rareWordOnly: boolean;
  /** The message against the candidates and against everyday chat. */
  view: DenseView;
  /** The message has a word that names something (not only greetings, small words or numbers). */
  content: boolean;
  exclude?: Set<string>;
  tuning: RecallTuning;
  tie(a: number, b: number): number;
}

/**
 * The fused ranking, or the gate that kept recall silent (meaningSilence's name for it: a turn's log
 * line records it, at no cost beyond the decision itself).
 */
export function fuse(f: FuseInput): Scored[] | Silence {
  const P = f.tuning;
  const { index } = f;
  const { cos } = f.view;
  const w = Math.min(1, Math.max(0, P.denseWeight));
  const maxCos = bestCosine(cos);
  const cal = f.view.calibration;
  const silence = meaningSilence(f, maxCos);
  if (silence !== undefined) return silence;
  // Without the embedder's scale (its null still being embedded), meaning only re-orders: it admits no line.
  if (w === 0 || maxCos === -Infinity) return f.lexical;

  const pool = new Map<number, Scored>();
  for (const s of f.lexical) pool.set(s.id, { ...s, semantic: Number.isNaN(cos[s.id]) ? undefined : cos[s.id] });
  for (const id of cal ? topByCosine(cos, P.denseCandidates, cosineAt(cal, P.denseAdmit)) : []) {
    if (pool.has(id)) continue;
    if (f.exclude && f.exclude.has(index.cands[id].norm)) continue;
    pool.set(id, { id, score: 0, evidence: 0, matched: 0, lexical: 0, semantic: cos[id] });
  }
  let lexMax = 0;
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of pool.values()) {
    if (s.lexical > lexMax) lexMax = s.lexical;
    if (s.semantic !== undefined) {
      if (s.semantic < lo) lo = s.semantic;
      if (s.semantic > hi) hi = s.semantic;
    }
  }
  const span = hi - lo;
  const out: Scored[] = [];
  for (const s of pool.values()) {
    const lex = lexMax > 0 ? s.lexical / lexMax : 0;
    if (s.semantic === undefined) {
      out.push({ ...s, score: lex });
      continue;
    }
    const dense = span > 1e-9 ? (s.semantic - lo) / span : 1;
    out.push({ ...s, score: (1 - w) * lex + w * dense });
  }
  return out.sort((a, b) => b.score - a.score || f.tie(a.id, b.id));
}

/** The message's best cosine with a line of the channel (-Infinity when no line has a vector yet). */
export function bestCosine(cos: Float32Array): number {
  let maxCos = -Infinity;
  for (let i = 0; i < cos.length; i++) if (cos[i] > maxCos) maxCos = cos[i];
  return maxCos;
}

/**
 * Words opened recall: it speaks unless the message is far closer to the null (everyday chat,
 * generic technical messages) than to any line of the channel; one rare word alone must also pass the
 * technical test meaning alone passes (a channel's own question about its tools shares their words
 * with generic questions about them, so words that clear the gate are withdrawn only when far
 * closer). Words did not: meaning alone opens it only for a message with a content word that clears
 * the floor and the channel's own chat bar, and is not closer to the null than to the channel. Every
 * threshold is in the embedder's own units (calibration.ts). Without the null's vectors (the model
 * still loading), meaning alone never opens. Undefined when recall may speak; otherwise the gate that
 * closed it (an explanation names it).
 */
export function meaningSilence(f: Pick<FuseInput, 'lexicalGate' | 'rareWordOnly' | 'view' | 'content' | 'tuning'>, maxCos: number): Silence | undefined {
  const P = f.tuning;
  const { chat, tech, calibration: cal } = f.view;
  if (f.lexicalGate) {
    if (!cal || Number.isNaN(chat) || maxCos === -Infinity) return undefined;
    if (!(chat - maxCos < P.chatVeto * cal.sd)) return 'chat-veto';
    // One rare word is the weakest opening ("buildkite?"): meaning must not find the message closer to
    // a generic technical one ("how do I add an index in MySQL" where the channel names MySQL once).
    if (f.rareWordOnly && -f.view.techGap() < P.techMargin) return 'rare-word-tech';
    return tech - maxCos < P.techVeto * cal.sd ? undefined : 'tech-veto';
  }
  if (!f.content) return 'no-content-word';
  if (!cal || Number.isNaN(chat)) return 'meaning-unscaled';
  if (maxCos < cosineAt(cal, P.denseFloor)) return 'meaning-below-floor';
  if (maxCos - chat < P.chatMargin * cal.sd) return 'closer-to-chat';
  if (-f.view.techGap() < P.techMargin) return 'closer-to-tech';
  const bar = f.view.chatBar();
  return !Number.isNaN(bar) && maxCos >= bar + P.chatBarMargin * cal.sd ? undefined : 'below-chat-bar';
}

/** Ids of the `k` highest cosines at or above `floor` (NaN never qualifies). */
function topByCosine(cos: Float32Array, k: number, floor: number): number[] {
  if (k <= 0) return [];
  const ids: number[] = [];
  for (let i = 0; i < cos.length; i++) if (cos[i] >= floor) ids.push(i);
  if (ids.length > k) {
    ids.sort((a, b) => cos[b] - cos[a]);
    ids.length = k;
  }
  return ids;
}
