/** Why a write or a state read of the channel store was refused; the message says what to do. */
export class StoreError extends Error {
  override name = 'StoreError';
}

/** A memory file with bytes that are not UTF-8: rewriting it would turn them into U+FFFD for good. */
export class NotUtf8FileError extends StoreError {
  override name = 'NotUtf8FileError';
  constructor(
    /** The file's path relative to the data root. */
    readonly file: string,
  ) {
    super(`${file} is not valid UTF-8, so Minutes will not rewrite it; re-save it as UTF-8`);
  }
}

/**
 * A `.minutes/` state file that does not parse, or does not have its schema's shape: rewriting it
 * from empty would drop its history.
 */
export class MalformedStateError extends StoreError {
  override name = 'MalformedStateError';
}

/** The first problem zod found, on one line: where in the file (`entries.k1.facts.date`) and what. */
export function schemaProblem(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  const issue = issues[0];
  if (!issue) return 'rejected by its schema';
  const where = issue.path
    .map((k, i) => (typeof k === 'number' ? `[${k}]` : typeof k === 'string' && /^[\w$-]+$/.test(k) ? `${i ? '.' : ''}${k}` : `[${JSON.stringify(String(k))}]`))
    .join('');
  return `${where || 'top level'}: ${issue.message.replace(/\s+/g, ' ')}`;
}

/**
 * JSON.parse's complaint on one short line: V8 quotes the text it choked on, which may hold
 * newlines or control characters from a damaged file (they would split a log or audit line).
 */
export function jsonProblem(err: unknown): string {
  const msg = (err as Error).message.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ');
  return msg.length > 200 ? `${msg.slice(0, 199)}…` : msg;
}
