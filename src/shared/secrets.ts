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

function applySpans(text: string, spans: Span[]): string {
  if (!spans.length) return text;
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += text.slice(at, s.start) + '[redacted]';
    at = s.end;
  }
  return out + text.slice(at);
}

export function redactSecrets(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let out = text;
  for (const re of SECRET_FORMATS) {
    re.lastIndex = 0;
    out = out.replace(re, '[redacted]');
  }
  out = applySpans(out, statementSpans(out));
  return applySpans(out, randomTokenSpans(out));
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
