/*
 * Patterns for credentials that must never reach memory files or the cold log. One list, used by
 * every writer (memory operations, log.jsonl, condensations, stored conversation), so a fix here
 * covers them all. They err towards redacting: a false positive costs a word, a miss leaks a key.
 */

/** Words that name a credential; the value after them is redacted. `_` may join them to a prefix. */
const CREDENTIAL_WORD =
  '(?:passwords?|passwd|pwd|passphrase|client[_ -]?secret|secret(?:[_ -]?(?:access[_ -]?)?key)?|private[_ -]?key|'
  + 'api[_ -]?key|apikey|access[_ -]?(?:token|key)|auth[_ -]?token|refresh[_ -]?token|token|bearer|credentials?)';
/** Start of a credential word: a word boundary, or `_` as in `AWS_SECRET_ACCESS_KEY` / `MY_API_KEY`. */
const WORD_START = '(?:\\b|(?<=_))';
const WORD_END = '(?![A-Za-z0-9])';

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
