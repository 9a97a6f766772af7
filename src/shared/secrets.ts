import { SECRET_FORMATS } from './secretFormats';
import { statementSpans, type Span } from './secretStatements';
import { randomTokenSpans } from './secretTokens';

/*
 * Credentials must never reach memory files, logs or the stored conversation. One detector, used by
 * every writer (memory operations, log.jsonl, condensations, SESSION.md, HISTORY.md, the stored
 * conversation, logged errors), so a fix here covers them all. Three kinds of evidence:
 * - a known format (secretFormats.ts): vendor key prefixes, tokens, webhook URLs, key blocks, URL passwords;
 * - a credential said in words (secretStatements.ts): "my password is swordfish", "PIN is 1234",
 *   "creds are admin / hunter2", "api_key=…", with "for X" and possessives;
 * - a long made-up string with no word before it (secretTokens.ts), by character mix and entropy.
 * The word that names the credential stays visible ("password is [redacted]") so the line still reads.
 */

/**
 * Cheap first look: a text with none of these cannot hold a secret by any rule below, so the rules
 * are not run at all (most log fields and most chat lines). Word stems, not whole words: "passwords",
 * "apikey", "PIN", "hooks.slack.com" all start with one; a run of 15 token characters covers every
 * key format and the made-up strings. An '@' counts only after a non-space character: the rules that
 * use one read a password before it ("user:pass@host"), while a word that starts with one is a
 * mention — every message the bot answers names it as "@Minutes", which sent each through every rule.
 */
const MAY_HOLD_SECRET =
  /pass|pw|pwd|secret|token|key|cred|log[_ -]?[io]n|logon|sign[_ -]?in|pin|code|combination|combo|auth|bearer|basic|wort|contrase|mot de passe|mdp|senha|:\/\/|\S@|-----BEGIN|eyJ|hooks|webhooks|[A-Za-z0-9_+-]{15}/i;

const MARKER = '[redacted]';

/** Where the marker that `pos` falls strictly inside starts, or -1. Looks only near `pos` (linear overall). */
function markerAround(text: string, pos: number): number {
  const from = Math.max(0, pos - MARKER.length + 1);
  const i = text.slice(from, pos + MARKER.length).indexOf(MARKER);
  return i >= 0 && from + i < pos ? from + i : -1;
}

/**
 * Replaces each span with the marker. A span that starts or ends inside a marker an earlier rule or
 * pass left is widened to the whole marker: replacing part of one ("[redacted" without its ']') is
 * how "admin / [redacted]]" grew a bracket a pass in log.jsonl (issue 40).
 */
function applySpans(text: string, spans: Span[]): string {
  if (!spans.length) return text;
  let out = '';
  let at = 0;
  for (const s of spans) {
    const a = markerAround(text, s.start);
    const b = markerAround(text, s.end);
    const start = Math.max(at, a < 0 ? s.start : a);
    const end = b < 0 ? s.end : b + MARKER.length;
    out += text.slice(at, start) + MARKER;
    at = Math.max(at, end);
  }
  return out + text.slice(at);
}

/** Every rule once, in order: known formats, then credentials said in words, then made-up strings. */
function redactPass(text: string): string {
  let out = text;
  for (const re of SECRET_FORMATS) {
    re.lastIndex = 0;
    out = out.replace(re, MARKER);
  }
  out = applySpans(out, statementSpans(out));
  return applySpans(out, randomTokenSpans(out));
}

/**
 * Passes until one changes nothing, so that redacting a redacted text changes nothing (log.jsonl
 * records what the store already redacted; upkeep rewrites redacted entries). The rules read a
 * value's surroundings, and a value replaced changes them: "aB3…=8c1f…" is one glued run until its
 * second half is a marker. A text with nothing to redact takes one pass, as before. Each pass that
 * changes something replaces text that is not a marker, so this ends; the bound is for safety.
 */
const MAX_PASSES = 8;

export function redactSecrets(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let out = text;
  for (let i = 0; i < MAX_PASSES; i++) {
    const next = redactPass(out);
    if (next === out) break;
    out = next;
  }
  return out;
}

export function containsSecret(text: string): boolean {
  return redactSecrets(text) !== text;
}

/**
 * Values no rule here can call a secret, and that every record is full of: a snowflake or other
 * number, an ISO time. Skipping them saves the rules on most fields of a log record (a snowflake's 18
 * digits pass the cheap first look); whatever else is in a record, including unknown fields, is
 * redacted as before.
 */
const NEVER_SECRET = /^(?:\d{1,20}|\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d{1,9})?)?(?:Z|[+-]\d\d:\d\d)?)$/;
/** Keys whose values the bot itself names (a record's kind, the model's name, a channel's label). */
const NAMED_BY_THE_BOT = new Set(['type', 'model', 'channel', 'guild']);

/** Whether a record's field is left as it is: it cannot hold what a person typed or a credential. */
export function cannotHoldSecret(key: string | undefined, value: string): boolean {
  return (key !== undefined && NAMED_BY_THE_BOT.has(key)) || NEVER_SECRET.test(value);
}

/**
 * A copy of `value` with every string in it redacted. For structured records (log.jsonl): redacting
 * the serialised JSON instead could swallow a closing quote or an escape and make the line invalid.
 */
export function redactValues<T>(value: T, key?: string): T {
  if (typeof value === 'string') return (cannotHoldSecret(key, value) ? value : redactSecrets(value)) as T;
  if (Array.isArray(value)) return value.map((v) => redactValues(v, key)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactValues(v, k);
    return out as T;
  }
  return value;
}
