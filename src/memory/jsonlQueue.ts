import fs from 'node:fs/promises';
import { parsedJsonLines } from '../shared/jsonLines';
import { TAKING_SUFFIX } from './layout';

/**
 * A JSON Lines file used as a work queue between processes (`minutes audit --fix` appends, the bot
 * takes): appended to through the store's `appendJsonl`, taken by renaming, never read-then-deleted.
 */

/**
 * Takes the queue: renames `file` to `<file>.taking` (unless an earlier take is still there) and
 * returns its records with the taken file's name, to `dropTaken` once they are done. A line
 * appended meanwhile goes to a new queue file instead of being deleted unread, and a crash leaves
 * the taken file to be taken again.
 */
export async function takeJsonlQueue(file: string): Promise<{ records: unknown[]; taken: string }> {
  const taken = `${file}${TAKING_SUFFIX}`;
  // Silent: another process took the queue file first, or there is none (an empty queue).
  if (
    !(await fs.stat(taken).then(
      () => true,
      () => false,
    ))
  )
    await fs.rename(file, taken).catch(() => undefined);
  const text = await fs.readFile(taken, 'utf8').catch(() => '');
  return { records: parsedJsonLines(text), taken };
}

export async function dropTaken(taken: string): Promise<void> {
  await fs.rm(taken, { force: true });
}

/** Everything queued, taken or not, without taking it (a reader that must not write). */
export async function peekJsonlQueue(file: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const f of [file, `${file}${TAKING_SUFFIX}`]) {
    // Silent on purpose: no queue file is an empty queue.
    out.push(...parsedJsonLines(await fs.readFile(f, 'utf8').catch(() => '')));
  }
  return out;
}
