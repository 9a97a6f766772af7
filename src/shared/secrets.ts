/*
 * Patterns for credentials that must never reach memory files or the cold log. One list, used by
 * every writer (memory operations, log.jsonl, condensations, stored conversation), so a fix here
 * covers them all. They err towards redacting: a false positive costs a word, a miss leaks a key.
 */

/** Words that name a credential; the value after them is redacted. `_` may join them to a prefix. */
const CREDENTIAL_WORD =
  '(?:passwords?|passwd|pwd|passphrase|client[_ -]?secret|secret(?:[_ -]?(?:access[_ -]?)?key)?|private[_ -]?key|' +
  'api[_ -]?key|apikey|access[_ -]?(?:token|key)|auth[_ -]?token|refresh[_ -]?token|token|bearer|credentials?)';
/** Start of a credential word: a word boundary, or `_` as in `AWS_SECRET_ACCESS_KEY` / `MY_API_KEY`. */
const WORD_START = '(?:\\b|(?<=_))';
const WORD_END = '(?![A-Za-z0-9])';
/**
 * Short names people say aloud ("the root pw is …", "the wifi pass is …"). Only before "is", `:` or
 * `=`: "pass the salt" and "we pass 100000 requests" are not credentials.
 */
const SPOKEN_WORD = '(?:pw|pass|passcode|passphrase|password|passwd|pwd)';
/** What a password is for, between the word and "is": "the password for the prod db is …", "the pw of db-1 is …". */
const FOR_WHAT = '(?:\\s+(?:for|of|on|to|at)\\s+(?:the\\s+)?[\\w.@-]+(?:\\s+[\\w.@-]+){0,2})?';
/**
 * A spoken value that looks like a password: a digit, or a symbol inside it ("required", and
 * "wrong!" with its sentence's own punctuation, do not).
 */
const LOOKS_LIKE_PASSWORD = '(?=[^\\s\'"`,;]*(?:[0-9]|[!@#$%^&*+=?~|][^\\s\'"`,;.!?]))';
const QUOTED_VALUE = '(?:"[^"\\n]{4,200}"|\'[^\'\\n]{4,200}\'|`[^`\\n]{4,200}`)';

const SECRET_PATTERNS: RegExp[] = [
  /\bsk-ant-[A-Za-z0-9_-]{10,}/g, // Anthropic keys
  /\bsk-(?:proj-|live-|test-)?[A-Za-z0-9_-]{12,}/g, // OpenAI and similar keys
  /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}/g, // Stripe secret and restricted keys
  /\bwhsec_[A-Za-z0-9]{20,}/g, // Stripe webhook secrets
  /\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b/g, // Discord bot tokens
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{30,}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab tokens
  /\bnpm_[A-Za-z0-9]{30,}\b/g, // npm tokens
  /\bhf_[A-Za-z0-9]{30,}\b/g, // Hugging Face tokens
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API keys
  // Incoming webhook URLs: whoever has one can post to the channel. The host stays readable.
  /(?<=\bhooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9_/-]{10,}/gi,
  /(?<=\bdiscord(?:app)?\.com\/api\/(?:v\d+\/)?webhooks\/)\d+\/[A-Za-z0-9_-]{20,}/gi,
  /\b(?<=Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, // Authorization headers quoted in error messages
  // JWTs. Anchored on "not inside a token run" rather than \b: with \b every '-' in a long run of
  // "eyJ-eyJ-…" starts a new attempt that scans to the run's end (quadratic: 100 KB took 14 s).
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
  // A private key block; without its END line (a paste cut short), everything after BEGIN.
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  // The password in a URL: postgres://user:pass@host and redis://:pass@host keep the user and host;
  // a password containing '@' runs to the last '@' before the host.
  /(?<=\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s/]+(?=@[^\s@/]+)/gi,
  // A quoted value after `:` or `=`, spaces and all: password = "correct horse battery staple",
  // {"password": "hunter22"} (the key's own closing quote may sit before the colon).
  new RegExp(`${WORD_START}${CREDENTIAL_WORD}${WORD_END}(["']?\\s*[:=]\\s*)(?:"[^"\\n]{4,200}"|'[^'\\n]{4,200}'|\`[^\`\\n]{4,200}\`)`, 'gi'),
  // "password: hunter", "API_KEY=abc…": an unquoted value after `:` or `=`.
  new RegExp(`${WORD_START}${CREDENTIAL_WORD}${WORD_END}(["']?\\s*[:=]\\s*)[^\\s'"\`,;]{6,}`, 'gi'),
  // Said in words: "the password for prod is Winter2026!Zebra", "the root pw is Tr0ub4dor&3x", the
  // SSH passphrase for deploy is "blue sky 42 tango". Quoted: any value; unquoted: only one that
  // looks like a password ("the password for staging is required" stays readable).
  new RegExp(`${WORD_START}${SPOKEN_WORD}${WORD_END}(${FOR_WHAT}\\s+(?:is|was|=|:)\\s*)(?:${QUOTED_VALUE}|${LOOKS_LIKE_PASSWORD}[^\\s'"\`,;]{6,})`, 'gi'),
  // A login pair: "prod login is admin / Winter2026!Zebra", "creds: deploy:Hunter22!". The user
  // name stays; the password after the slash or colon goes.
  new RegExp(
    `${WORD_START}(?:login|logon|creds)${WORD_END}(${FOR_WHAT}(?:\\s+(?:is|are)\\s+|\\s*[:=]\\s*)[^\\s/:]{1,64}\\s*[/:]\\s*)${LOOKS_LIKE_PASSWORD}[^\\s'"\`,;]{4,}`,
    'gi',
  ),
  // "token is abc123…", "password hunter2": after "is" or a space, only a value with a digit
  // ("the password is required" stays readable).
  new RegExp(`${WORD_START}${CREDENTIAL_WORD}${WORD_END}(\\s+is\\s+|\\s+)(?=\\S*[0-9])[^\\s'"\`,;]{6,}`, 'gi'),
];

export function containsSecret(text: string): boolean {
  return SECRET_PATTERNS.some((re) => {
    re.lastIndex = 0;
    return re.test(text);
  });
}

export function redactSecrets(text: string): string {
  let out = text;
  for (const re of SECRET_PATTERNS) {
    re.lastIndex = 0;
    out = out.replace(re, (match: string, sep?: string) => {
      // Keep the credential word visible ("password: [redacted]") so the line still reads.
      if (typeof sep === 'string') {
        const idx = match.indexOf(sep);
        return idx >= 0 ? `${match.slice(0, idx + sep.length)}[redacted]` : '[redacted]';
      }
      return '[redacted]';
    });
  }
  return out;
}

/**
 * A copy of `value` with every string in it redacted. For structured records (log.jsonl): redacting
 * the serialised JSON instead could swallow a closing quote or an escape and make the line invalid.
 */
export function redactValues<T>(value: T): T {
  if (typeof value === 'string') return redactSecrets(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactValues(v)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactValues(v);
    return out as T;
  }
  return value;
}
