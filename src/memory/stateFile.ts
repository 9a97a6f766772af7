import fs from 'node:fs/promises';
import path from 'node:path';
import type { ZodType } from 'zod';
import type { Logger } from '../log/logger';
import { readTextIfExists } from './atomicWrite';
import { keepAside } from './keptAside';
import { jsonProblem, MalformedStateError, schemaProblem, StoreError } from './storeErrors';

export interface ReadStateOptions {
  /** Paths in messages are relative to it (the data root). */
  root: string;
  log: Logger;
  /** State that is rewritten from what is read (ledger, context): refuse a bad file, never reset it. */
  strict?: boolean;
}

/**
 * The one way to read a JSON state file of a `.minutes/` folder: parsed and checked against its
 * zod schema; null when missing. A file that is not JSON, or is JSON of the wrong shape, is
 * ignored (null), or with `strict` refused with a MalformedStateError, so a stray comma never
 * resets it to empty.
 *
 * What is returned is the file's own value, once the schema accepts it: unknown keys and key
 * order are kept, so a read-modify-write changes only what the caller changed. That is why the
 * schema's input and output types must be one type (no defaults, no transforms): the caller
 * gets what the file holds, not what a transform would have made of it.
 */
export async function readStateFile<T>(file: string, schema: ZodType<T, T>, o: ReadStateOptions): Promise<T | null> {
  const text = await readTextIfExists(file).catch((err: Error) => {
    if (o.strict) throw new StoreError(`cannot read ${path.relative(o.root, file)}: ${err.message}; check its permissions`);
    return null;
  });
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return unreadable(file, o, { problem: `is not valid JSON (${jsonProblem(err)})`, warning: 'state file is not valid JSON' });
  }
  const checked = schema.safeParse(value);
  // The parsed value itself, not zod's copy of it: the schema accepted it as a T (see above).
  if (checked.success) return value as T;
  const problem = `does not have the expected shape (${schemaProblem(checked.error.issues)})`;
  return unreadable(file, o, { problem, warning: 'state file does not have the expected shape' });
}

/** A state file that cannot be used: kept beside as `<name>.unreadable` and null, or refused when strict. */
async function unreadable(file: string, o: ReadStateOptions, why: { problem: string; warning: string }): Promise<null> {
  const rel = path.relative(o.root, file);
  if (!o.strict) {
    // It will be rewritten from scratch (conversation, upkeep cursors): keep what it held for a
    // person to look at, beside it (keptAside.ts: a later damage never overwrites an earlier copy).
    // Silent on purpose: a file gone meanwhile has nothing to keep.
    const bytes = await fs.readFile(file).catch(() => null);
    let kept: string | null = null;
    let keepFailed: string | undefined;
    if (bytes) kept = await keepAside(file, bytes).catch((err: Error) => ((keepFailed = err.message), null));
    if (kept || !bytes) {
      o.log.warn(
        { file: rel, keptAs: kept ? path.relative(o.root, kept) : undefined, problem: why.problem },
        `${why.warning}; starting it afresh (its old text is kept beside it)`,
      );
    } else {
      o.log.error(
        { file: rel, problem: why.problem, err: keepFailed },
        `${why.warning}; starting it afresh, and its old text could NOT be kept beside it: copy ${rel} away now`,
      );
    }
    return null;
  }
  const msg = `${rel} ${why.problem}; fix or remove it`;
  o.log.error({ file: rel }, msg);
  throw new MalformedStateError(msg);
}
