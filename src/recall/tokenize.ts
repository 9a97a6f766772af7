/**
 * Unicode-aware tokenization for targeted recall.
 *
 * - Scripts that separate words with spaces (Latin, Cyrillic, Greek, Arabic, Hangul, …) are split by
 *   one regular expression over letters, marks and digits.
 * - Runs of Han, kana or Thai are handed to `Intl.Segmenter`, one run at a time and in short chunks:
 *   on Node 20 the segmenter is badly super-linear on long strings (a 1 MB string takes minutes), so
 *   it never sees a whole file, only a run inside one entry.
 * - Latin-script tokens are lowercased and lightly stemmed (plural, -ing, -ed, -ly, a final e), so
 *   "painting", "paints" and "painted" meet at "paint".
 * - Grammatical words are dropped everywhere; `queryTokens` also drops the words that shape a
 *   question or a chat line ("what", "tell", "remember", …) and carry no topic.
 */

import { COMMON_ENGLISH } from './commonWords';

const CJK_CLASS = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\u30FC\\u3005\\p{Script=Thai}';
// One run of CJK/Thai, or one run of other letters/marks/digits (the `v` flag allows set difference).
const TOKEN_RE = new RegExp(`[${CJK_CLASS}]+|[[\\p{L}\\p{M}\\p{N}]--[${CJK_CLASS}]]+`, 'gv');
const HAS_CJK_RE = new RegExp(`[${CJK_CLASS}]`, 'v');
const KANA_RE = /[\p{Script=Hiragana}\p{Script=Katakana}\u30FC]/u;
const THAI_RE = /\p{Script=Thai}/u;
const HAN_RE = /\p{Script=Han}/u;
const LATIN_RE = /^[a-z]+$/;
/** Longest piece of a CJK run the segmenter sees at once (it is super-linear on long input). */
const SEGMENT_CHUNK = 200;

/** Grammatical words: never evidence in an entry or in a query. */
const STOP_WORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most my
myself no nor not now of off on once only or other our ours ourselves out over own same she should so
some such than that the their theirs them themselves then there these they this those through to too
under until up very was we were what when where which while who whom why will with would you your yours
yourself yourselves s t don didn doesn isn wasn weren won wouldn shouldn couldn ll re ve d m o y
also may might must shall us let lets let's via per etc ever yet else onto upon`.split(/\s+/),
);

/**
 * Words that shape a question or a chat line but name no topic. Dropped from queries only: an entry
 * that says "the next sort of test" keeps its words, a question "what sort of …" does not match on them.
 */
const QUERY_STOP_WORDS = new Set(
  `what whats which who whom whose when where why how type types sort sorts thing things
something anything everything stuff tell told say said know knows knew remember recall think thought
please thanks thank hi hello hey ok okay yes yeah yep nope sure like likely probably maybe perhaps
guess wonder wondering mean means meant really actually ever anyone someone somebody anybody one
give describe explain mention mentioned talk talked discuss discussed happen happened`.split(/\s+/),
);

/** Chinese/Japanese function characters and particles: not evidence on their own. */
const CJK_STOP = new Set(
  `的 了 在 是 和 与 或 也 都 就 而 及 着 过 吗 呢 吧 啊 呀 嗯 这 那 个 之 其 把 被 给 从 向 对 于 为 以 我 你 他 她 它 们
有 没 不 很 还 又 再 才 要 会 能 可 说 让 去 来 上 下 中 里 后 前 时 么 什 哪 谁 怎 样 多 少
は が を に の で と も へ や か な ね よ だ た て し す る れ ら です ます でした ました この その あの どの こと もの
よう ため から まで より など って という これ それ あれ どれ 何 いつ どこ だれ 誰`.split(/\s+/),
);

const segmenters = new Map<string, Intl.Segmenter>();
function segmenter(locale: string): Intl.Segmenter {
  let s = segmenters.get(locale);
  if (!s) {
    s = new Intl.Segmenter(locale, { granularity: 'word' });
    segmenters.set(locale, s);
  }
  return s;
}

/**
 * Irregular English verb forms and plurals, mapped to the base form before stemming so that "bought"
 * meets "buy" and "children" meets "child". General English morphology (the common irregular verbs
 * and nouns), not a thesaurus: no word is mapped to a different word, only to its own lemma.
 */
const IRREGULAR = new Map<string, string>(
  `found:find
bought:buy brought:bring thought:think taught:teach caught:catch fought:fight sought:seek ran:run
began:begin begun:begin saw:see seen:see felt:feel kept:keep left:leave lost:lose won:win
met:meet told:tell sold:sell held:hold built:build sent:send spent:spend paid:pay heard:hear
chose:choose chosen:choose fell:fall fallen:fall flew:fly flown:fly drove:drive driven:drive ate:eat
eaten:eat grew:grow grown:grow knew:know known:know wrote:write written:write sang:sing sung:sing
swam:swim swum:swim drew:draw drawn:draw wore:wear worn:wear stood:stand understood:understand
broke:break broken:break spoke:speak spoken:speak rode:ride ridden:ride
threw:throw thrown:throw shook:shake shaken:shake forgot:forget forgotten:forget hid:hide hidden:hide
slept:sleep led:lead fed:feed dealt:deal meant:mean lent:lend bent:bend
became:become overcame:overcome struck:strike hung:hang dug:dig stuck:stick won:win sat:sit
children:child people:person men:man women:woman feet:foot teeth:tooth mice:mouse geese:goose
wives:wife knives:knife shelves:shelf wolves:wolf halves:half`
    .split(/\s+/)
    .filter(Boolean)
    .map((p) => p.split(':') as [string, string]),
);

/** A light, deterministic English suffix stripper (not Porter; it only has to be consistent). */
export function stem(word: string): string {
  // A Map, not an object: "constructor" must not find Object's own properties.
  let w = IRREGULAR.get(word) ?? word;
  if (w.length <= 3 || !LATIN_RE.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) w = w.slice(0, -3) + 'y';
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  let stripped = false;
  if (w.endsWith('ied') && w.length > 4) {
    w = w.slice(0, -3) + 'y';
  } else if (w.endsWith('ing') && hasVowel(w.slice(0, -3)) && w.length - 3 >= 3) {
    w = w.slice(0, -3);
    stripped = true;
  } else if (w.endsWith('ed') && !w.endsWith('eed') && hasVowel(w.slice(0, -2)) && w.length - 2 >= 3) {
    w = w.slice(0, -2);
    stripped = true;
  } else if (w.endsWith('ly') && !w.endsWith('ily') && w.length - 2 >= 4) {
    w = w.slice(0, -2);
  }
  if (stripped) {
    const n = w.length;
    if (n >= 3 && w[n - 1] === w[n - 2] && !'lsz'.includes(w[n - 1]) && !'aeiou'.includes(w[n - 1])) w = w.slice(0, -1);
  }
  // A final silent e: "hike"/"hiking"/"hiked" all become "hik".
  if (w.length >= 4 && w.endsWith('e') && !w.endsWith('ee') && !'aeiou'.includes(w[w.length - 2])) w = w.slice(0, -1);
  return w;
}

function hasVowel(s: string): boolean {
  return /[aeiouy]/.test(s);
}

function pushCjk(run: string, out: string[]): void {
  const locale = KANA_RE.test(run) ? 'ja' : THAI_RE.test(run) ? 'th' : 'zh';
  const seg = segmenter(locale);
  for (let i = 0; i < run.length; i += SEGMENT_CHUNK) {
    const chunk = run.slice(i, i + SEGMENT_CHUNK);
    for (const part of seg.segment(chunk)) {
      if (part.isWordLike === false) continue;
      const w = part.segment;
      if (CJK_STOP.has(w)) continue;
      if (w.length === 1 && !HAN_RE.test(w)) continue; // lone kana: particles and endings
      out.push(w);
      // Long Han compounds also match by their bigrams (the segmenter may cut a compound differently
      // in a short query than in a long entry).
      if (w.length >= 3 && HAN_RE.test(w)) {
        for (let k = 0; k + 2 <= w.length; k++) out.push(w.slice(k, k + 2));
      }
    }
  }
}

/**
 * Text that is all ASCII (most memory lines and chat) is split into runs of [a-z0-9]: for ASCII
 * the Unicode expression matches exactly these runs, and it cost 2–3× as much per line of a
 * 50-entry MEMORY.md (which a new channel tokenizes at its first turn; docs/benchmarks.md, issue 25).
 */
const ASCII_ONLY_RE = /^[\x00-\x7f]*$/;

/** a–z or 0–9 (the text is lowercased first). */
function isAsciiWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
}

function tokenizeWith(text: string, dropQueryWords: boolean): string[] {
  const out: string[] = [];
  const lower = text.toLowerCase();
  if (ASCII_ONLY_RE.test(lower)) {
    // Scanned by hand: an expression's match array per word was most of the garbage of a parse.
    for (let i = 0; i < lower.length; i++) {
      if (!isAsciiWordChar(lower.charCodeAt(i))) continue;
      let j = i + 1;
      while (j < lower.length && isAsciiWordChar(lower.charCodeAt(j))) j++;
      pushWord(lower.slice(i, j), dropQueryWords, out);
      i = j;
    }
    return out;
  }
  TOKEN_RE.lastIndex = 0;
  for (let m = TOKEN_RE.exec(lower); m !== null; m = TOKEN_RE.exec(lower)) {
    const run = m[0];
    if (HAS_CJK_RE.test(run[0])) pushCjk(run, out);
    else pushWord(run, dropQueryWords, out);
  }
  return out;
}

function pushWord(run: string, dropQueryWords: boolean, out: string[]): void {
  if (run.length < 2 && !/\d/.test(run)) return;
  if (STOP_WORDS.has(run)) return;
  if (dropQueryWords && QUERY_STOP_WORDS.has(run)) return;
  out.push(stemmed(run));
}

/**
 * Stems already computed: a channel's words repeat across its lines and turns. Bounded (cleared
 * when full) so a flood of distinct words cannot grow it; ~50k short strings are a few MB.
 */
const STEMS_MAX = 50_000;
const stems = new Map<string, string>();
function stemmed(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    if (stems.size >= STEMS_MAX) stems.clear();
    s = stem(word);
    stems.set(word, s);
  }
  return s;
}

/** Tokens of an entry (document side), in order, with repeats. */
export function tokenize(text: string): string[] {
  return tokenizeWith(text, false);
}

/** Distinct tokens of a query: grammar and question-shaping words removed. */
export function queryTokens(text: string): string[] {
  return Array.from(new Set(tokenizeWith(text, true)));
}

/** Everyday words (commonWords.ts): they match many chats that have nothing to do with a channel. */
const WEAK_WORDS = new Set(COMMON_ENGLISH.split(/\s+/).filter(Boolean).map(stem));

export function isWeakToken(t: string): boolean {
  return WEAK_WORDS.has(t);
}

export function hasCjk(text: string): boolean {
  return HAS_CJK_RE.test(text);
}
