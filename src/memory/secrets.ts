/**
 * Patterns for credentials that must never reach memory files or the cold log. One list, used by
 * every writer (memory operations, log.jsonl, condensations), so a fix here covers them all.
 */
const SECRET_PATTERNS: RegExp[] = [
  /\bsk-ant-[A-Za-z0-9_-]{10,}/g, // Anthropic keys
  /\bsk-(?:proj-|live-|test-)?[A-Za-z0-9_-]{12,}/g, // OpenAI and similar keys
  /\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b/g, // Discord bot tokens
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{30,}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API keys
  /\b(?<=Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, // Authorization headers quoted in error messages
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, // JWTs
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  // "password: hunter2", "api_key=abc", "token is abc123…": the value after a credential word.
  /\b(?:passwords?|passwd|pwd|secret|api[_ -]?key|access[_ -]?token|auth[_ -]?token|token|bearer)\b(\s*(?:[:=]|is)\s*|\s+)(?=\S*[0-9])[^\s'"`,;]{6,}/gi,
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
