import { FUNCTION_WORDS, isDescriptive } from './secretWords';

/*
 * A credential said in words: a word that names one, optionally what it is for, a verb or a sign,
 * then a value. "my password is swordfish", "the secret for staging is hunter2", "PIN is 1234",
 * "creds are admin / hunter2", "pw: rutabaga9". Whether the value is a secret depends on the word:
 * after "password" or "secret" anything that does not read as a description is one; after a bare
 * "token" or "key" ("the key is simplicity") only a value that looks made up is.
 */

/** A span of text to replace with [redacted]. */
export interface Span {
  start: number;
  end: number;
}

const J = '[_ -]?';
/** Named credentials whose value is any non-descriptive word: "the api key is tomato". */
const KEY_NOUN =
  `(?:api|access|auth|bot|refresh|bearer|session|oauth|app|webhook|deploy|personal${J}access|github|gitlab|slack|discord|npm|jwt)${J}tokens?|` +
  `auth${J}(?:strings?|keys?|headers?)|apikeys?|` +
  `(?:api|access|secret(?:${J}access)?|private|licen[cs]e|product|signing|encryption|master|ssh|deploy)${J}keys?`;
/** Words for a password or a shared secret (in a few languages): any non-descriptive value. */
const PASS_NOUN =
  `client${J}secrets?|pass(?:word|phrase|code)s?|passwd|pwd|pw|secrets?|cred(?:ential)?s|credential|` +
  'passwort|kennwort|contrase(?:ñ|n)a|mot de passe|mdp|senha|wachtwoord|' +
  // A bare "pass" is weak ("the day pass", "the pass rate"); after what logs in, it is a password.
  `(?:wi${J}fi|network|router|admin|root|mailbox|e?mail|vpn|account|user|db|database|ssh|server)${J}pass`;
/**
 * A password word with its value right after it, no verb or sign: "… with password Pumpernickel",
 * "user ops, pw bramble". Only the singular words for a password itself ("passwords expire", "the
 * secret sauce" are about them).
 */
const BARE_PASS = /(?:pass(?:word|phrase|code)?|passwd|pwd|pw)$/i;
/** What a password has or is part of ("password manager", "pw reset", "password authentication"): the compound's head, not a value. */
const COMPOUND_HEAD =
  /^(?:[a-z]+(?:tion|sion|ment|ness|ity|ance|ence|ship)s?|managers?|policy|policies|rules?|requirements?|login|logins|auth|hints?|prompts?|fields?|recovery|expiry|length|strength|hash(?:es)?|form|page|box|input|generator|vault|file|entry|screen|dialog|history|changes?|sharing)$/;
/** Words that end a sentence about a password without giving one: "change the password first". */
const WHEN_WORDS = new Set('today tomorrow yesterday tonight later soon first last asap twice please thanks'.split(' '));
/** Codes that open something: the value must hold a digit ("the door code is on the whiteboard" is not one). */
const OPENS = 'door|gate|safe|lock|alarm|building|office|garage|keypad|locker|vault|room|cabinet|padlock|entrance|lobby';
const DIGITS_NOUN =
  `pins?(?:${J}(?:codes?|numbers?))?|(?:${OPENS}|entry|access|security|verification|2fa|mfa|otp|backup|recovery|unlock)${J}codes?|` +
  `combination|combo|codes?(?=\\s+(?:to|for|of)\\s+(?:the\\s+)?(?:[\\w-]+\\s+)?(?:${OPENS})s?\\b)`;
/** Words with ordinary meanings too ("the token bucket", "the key is simplicity"): only a made-up-looking value. */
const WEAK_NOUN = 'tokens?|keys?|pass';
/** A login is a user name and a password: only the pair's second half is a secret. */
const PAIR_NOUN = `log${J}(?:in|on)s?|sign${J}ins?`;

/** What a credential is for: "the password for the prod db is …", "the code to the door is …". */
const FOR_WORD = '(?!(?:is|are|was|were)\\b)[\\w.@-]+';
const FOR_WHAT = `(?:\\s+(?:for|of|on|to|at)\\s+(?:the\\s+)?${FOR_WORD}(?:\\s+${FOR_WORD}){0,2})?`;
const CHANGED_TO = '(?:\\s+(?:set|changed|reset|updated)\\s+to)?';
/** A verb, or a sign: `:` `=` `->`, after a JSON key's closing quote too (`{"password": "…"}`). */
const VERB =
  `(?:\\s+(?:(?:is|was|are|were)(?:\\s+(?:now|still|currently|actually|just|simply|always))?${CHANGED_TO}|` +
  `(?:will|would|should|shall|must|can)\\s+be|(?:has|have|had)\\s+been${CHANGED_TO}|(?:got\\s+)?(?:set|changed|reset|updated)\\s+to|` +
  'becomes?|became|equals|reads|ist|es|est|é|är|jest)(?:\\s*:)?\\s+|' +
  // "the password's been set to …", "the pw's now …"; a bare "'s" is a possessive ("the password's length").
  `['’]s\\s+(?:been${CHANGED_TO}|now|still|currently|(?:set|changed|reset|updated)\\s+to)(?:\\s*:)?\\s+|` +
  '["\']?\\s*(?:[:=]|->|=>)\\s*)';

const STATEMENT = new RegExp(
  `(?:\\b|(?<=_))(?:(${KEY_NOUN})|(${PASS_NOUN})|(${DIGITS_NOUN})|(${WEAK_NOUN})|(${PAIR_NOUN}))(?![A-Za-z0-9])(?:${FOR_WHAT}${VERB}|(\\s+))`,
  'gi',
);

type Kind = 'key' | 'pass' | 'digits' | 'weak' | 'pair';
const KINDS: Kind[] = ['key', 'pass', 'digits', 'weak', 'pair'];

interface Token {
  text: string;
  start: number;
  end: number;
  /** The clause goes on after this token (no comma, quote, sentence end or line end). */
  more: boolean;
}

/** Words that carry a number on to what it is for ("PIN is 1234 for the garage"); any other word makes it a quantity. */
const CONNECTORS = new Set('and but or so for to at on in from if until please then which because since when while'.split(' '));
const QUOTES: Record<string, string> = { '"': '"', "'": "'", '`': '`', '“': '”', '‘': '’' };
const INNER_SYMBOL = /[!@#$%^&*+=?~|]/;
const HAS_DIGIT = /[0-9]/;
const HAS_LETTER = /[A-Za-z]/;

/** The next few words after `pos`, up to the end of the clause. */
function tokensAt(text: string, pos: number): Token[] {
  const out: Token[] = [];
  const re = /([^\s'"`,;“‘]+)([^\S\n]*)/y;
  re.lastIndex = pos;
  while (out.length < 8) {
    const m = re.exec(text);
    if (!m) break;
    const raw = m[1];
    const text0 = raw.replace(/[.!?:)\]}]+$/, '');
    const start = m.index;
    const next = text[m.index + m[0].length];
    const ended = text0.length < raw.length || next === undefined || /[\n,;'"`“‘]/.test(next);
    if (text0) out.push({ text: text0, start, end: start + text0.length, more: !ended });
    if (ended || !text0) break;
  }
  return out;
}

function quotedAt(text: string, pos: number): Span | null {
  const close = QUOTES[text[pos]];
  if (!close) return null;
  const end = text.indexOf(close, pos + 1);
  if (end < 0 || end - pos > 201) return null;
  const inner = text.slice(pos + 1, end);
  if (!inner.trim() || inner.includes('\n') || isDescriptive(inner.trim())) return null;
  return { start: pos, end: end + 1 };
}

/** The run of words that make up a spoken value: up to a linking word or the clause's end. */
function valueRun(tokens: Token[]): Span {
  let last = tokens[0];
  for (let i = 1; i < tokens.length && tokens[i - 1].more && i < 6; i++) {
    if (FUNCTION_WORDS.has(tokens[i].text.toLowerCase()) || isDescriptive(tokens[i].text)) break;
    last = tokens[i];
  }
  return { start: tokens[0].start, end: last.end };
}

/**
 * What an earlier pass left: a value already replaced is never read as one again, or each pass would
 * redact the marker's own text and leave its ']' behind ("admin / [redacted]]", issue 40).
 */
const isMarker = (s: string): boolean => s.startsWith('[redacted');

/** A user and a password, "admin / hunter2" or "deploy:Pa55word": the password's span ('redacted' when an earlier pass took it). */
function pairSecret(tokens: Token[]): Span | 'redacted' | null {
  const [a, b, c] = tokens;
  if (a.more && b?.text === '/' && b.more && c) return isMarker(c.text) ? 'redacted' : { start: c.start, end: c.end };
  const m = /^[^/:]{1,64}[/:](?=.)/.exec(a.text);
  if (!m || a.text.includes('://')) return null;
  if (isMarker(a.text.slice(m[0].length))) return 'redacted';
  return { start: a.start + m[0].length, end: a.end };
}

/**
 * Whether the word right after a bare password word is its value: one that ends the clause and is
 * not the head of a compound ("with password Pumpernickel", "with pw quicksilver", "passcode 8812";
 * not "with password authentication, …", "the password prompt is …", "the password Bob sent").
 */
function bareValue(t: Token): boolean {
  const w = t.text.toLowerCase();
  if (isDescriptive(w) || COMPOUND_HEAD.test(w) || WHEN_WORDS.has(w) || /^[A-Z]{2,5}$/.test(t.text)) return false;
  return !t.more && (!/^[0-9]+$/.test(t.text) || t.text.length >= 3);
}

/** The span of the secret after a credential word at `pos`, or null when the words there describe it. */
function secretAfter(text: string, pos: number, kind: Kind, noun: string, bare: boolean): Span | null {
  // Checked before reading the words: a marker glued to what follows is one long token, and reading
  // it again for each credential word after it would be quadratic ('password="…' repeated, redacted).
  if (text.startsWith('[redacted', pos)) return null;
  const quoted = bare ? null : quotedAt(text, pos);
  if (quoted) return quoted;
  const tokens = tokensAt(text, pos);
  const first = tokens[0]?.text;
  // Already redacted, or a reference to where the value lives: a path, a variable, a placeholder.
  if (!first || isMarker(first) || first.includes('://') || /^(?:~?\.?\/|\$|%|<|\{)/.test(first) || /^[x*•.]+$/i.test(first)) {
    return null;
  }
  if (bare) {
    const madeUp = kind !== 'digits' && kind !== 'pair' && first.length >= 6 && HAS_DIGIT.test(first) && HAS_LETTER.test(first);
    return madeUp || (kind === 'pass' && BARE_PASS.test(noun) && bareValue(tokens[0])) ? { start: tokens[0].start, end: tokens[0].end } : null;
  }
  if (kind === 'pair' || /^cred/i.test(noun)) {
    const pair = pairSecret(tokens);
    if (pair === 'redacted') return null;
    if (pair || kind === 'pair') return pair;
  }
  if (/^[0-9](?:[0-9 -]*[0-9])?$/.test(first)) {
    const digits = first.replace(/\D/g, '').length;
    // "6 digits", "50 per second": a number followed by what it counts is a quantity.
    const next = tokens[1];
    const quantity = tokens[0].more && next && /^[A-Za-z%]/.test(next.text) && !CONNECTORS.has(next.text.toLowerCase());
    const enough = kind === 'key' ? digits >= 8 : kind === 'pass' || kind === 'digits' ? digits >= 3 : false;
    return enough && !quantity ? { start: tokens[0].start, end: tokens[0].end } : null;
  }
  if (isDescriptive(first)) {
    // A passphrase of plain words, "correct horse battery staple": three or more words, none of them linking.
    const run = tokens.slice(0, 6);
    const words = run.findIndex((t, i) => i > 0 && (!/^[a-z]+$/.test(t.text) || isDescriptive(t.text) || !run[i - 1].more));
    const count = words < 0 ? run.length : words;
    return kind === 'pass' && count >= 3 && /^[a-z]+$/.test(first) ? { start: tokens[0].start, end: tokens[count - 1].end } : null;
  }
  // "the access token is JWT", "the key is RSA": an acronym names a kind of credential.
  if (/^[A-Z]{2,5}$/.test(first)) return null;
  if (kind === 'digits' && !HAS_DIGIT.test(first)) return null;
  if (kind === 'weak') {
    const madeUp = (first.length >= 6 && HAS_DIGIT.test(first) && HAS_LETTER.test(first)) || INNER_SYMBOL.test(first.slice(1)) || first.length >= 16;
    if (!madeUp) return null;
  }
  return kind === 'digits' || kind === 'weak' ? { start: tokens[0].start, end: tokens[0].end } : valueRun(tokens);
}

/** Spans of credentials said in words, in text order, not overlapping. */
export function statementSpans(text: string): Span[] {
  const spans: Span[] = [];
  const re = new RegExp(STATEMENT.source, STATEMENT.flags);
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const g = KINDS.findIndex((_, i) => m![i + 1] !== undefined);
    const bare = m[6] !== undefined;
    const span = secretAfter(text, m.index + m[0].length, KINDS[g], m[g + 1], bare);
    if (span) {
      spans.push(span);
      re.lastIndex = span.end;
    } else {
      re.lastIndex = m.index + 1;
    }
  }
  return spans;
}
