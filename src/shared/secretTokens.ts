import type { Span } from './secretStatements';

/*
 * A key pasted with no word before it: a long run of letters and digits that looks made up. Judged
 * by its character mix, not by a list of formats: at least 20 characters; two of lower case, upper
 * case and digits, switching often (new_checkout_v2_2026 switches rarely); high Shannon entropy; and
 * not made of words (getUserByIdAndEmail2FA is an identifier).
 *
 * Left alone on purpose: hex-only strings (commit hashes, checksums) and UUIDs. Teams paste them all
 * day and they are not credentials; a hex key said after a credential word ("the client secret is
 * 9f8e…") is still caught by secretStatements. ISO dates and times never reach 20 characters here
 * (':' and '.' end a run). Nor a part of a link ("docs.google.com/d/1aB2…"): a shared document's id is
 * what the team wants remembered; a password in a URL is caught by its own pattern.
 */

const MIN_LENGTH = 20;
/** Bits per character: random letters and digits score 3.6–4.5 at 20–40 characters. */
const MIN_ENTROPY = 3.4;
/** Share of adjacent characters that change class (lower, upper, digit): random ≥ 0.2; snake_case words with numbers far less. */
const MIN_SWITCHES = 0.2;

const RUN = /(?<![A-Za-z0-9_+-])[A-Za-z0-9_+-]{20,}={0,2}(?![A-Za-z0-9_+=-])/g;
const HEX_OR_UUID = /^[0-9a-fA-F-]+$/;

function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) h -= (n / s.length) * Math.log2(n / s.length);
  return h;
}

const classOf = (c: string): number => (c >= 'a' && c <= 'z' ? 1 : c >= 'A' && c <= 'Z' ? 2 : c >= '0' && c <= '9' ? 3 : 0);

/**
 * An identifier made of words (getUserByIdAndEmail2FA, iPhone15ProMaxUpgrade): most characters sit
 * in word-like pieces of three or more letters with a vowel, and a quarter or more of the letters are vowels (y counted).
 * Random letters are a fifth vowels and rarely form such pieces.
 */
function madeOfWords(s: string): boolean {
  // Lower case split only by digits ("palje0d9r7tujjeazx…") is how random keys look, not how names are written.
  if (!/[A-Z_-]/.test(s)) return false;
  const letters = s.replace(/[^A-Za-z]/g, '');
  const vowels = letters.replace(/[^aeiouyAEIOUY]/g, '').length;
  let wordish = 0;
  for (const piece of s.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g) ?? []) if (piece.length >= 3 && /[aeiouy]/i.test(piece)) wordish += piece.length;
  return vowels >= 0.25 * letters.length && wordish >= 0.5 * s.length;
}

/** Whether one run of token characters looks like a made-up key. */
export function looksRandom(part: string): boolean {
  if (part.length < MIN_LENGTH || HEX_OR_UUID.test(part)) return false;
  let lower = 0;
  let upper = 0;
  let digits = 0;
  let switches = 0;
  let pairs = 0;
  for (let i = 0; i < part.length; i++) {
    const c = classOf(part[i]);
    if (c === 1) lower++;
    else if (c === 2) upper++;
    else if (c === 3) digits++;
    const prev = i > 0 ? classOf(part[i - 1]) : 0;
    if (c && prev) {
      pairs++;
      if (c !== prev) switches++;
    }
  }
  const classes = [lower, upper, digits].filter((n) => n >= 2).length;
  if (classes < 2 || pairs === 0 || switches / pairs < MIN_SWITCHES) return false;
  return entropy(part) >= MIN_ENTROPY && !madeOfWords(part);
}

export function randomTokenSpans(text: string): Span[] {
  const spans: Span[] = [];
  for (const m of text.matchAll(RUN)) {
    // Bounded look back: a long text without spaces must not be rescanned for every run in it.
    const before = text.slice(Math.max(0, m.index - 200), m.index);
    const word = before.slice(Math.max(before.lastIndexOf(' '), before.lastIndexOf('\n')) + 1);
    if (/[/.]/.test(word)) continue;
    if (looksRandom(m[0])) spans.push({ start: m.index, end: m.index + m[0].length });
  }
  return spans;
}
