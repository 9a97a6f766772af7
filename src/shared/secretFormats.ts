/*
 * Credentials recognised by their format: vendors' key prefixes, tokens, webhook URLs, private key
 * blocks, and the password inside a URL. Credentials said in words are in secretStatements.ts, long
 * made-up strings with no word before them in secretTokens.ts.
 */

export const SECRET_FORMATS: RegExp[] = [
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
  // Authorization headers with basic credentials quoted in an error message.
  /\b(?<=Basic\s+)[A-Za-z0-9+/]{12,}={0,2}/g,
  // A password in a connection string without a scheme: "deploy:hunter2@10.0.0.5" (not mailto:bob@…).
  /(?<=(?:^|\s)[A-Za-z0-9._-]{1,64}:)(?<!mailto:)[^\s:/@]{3,}(?=@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)/g,
];
