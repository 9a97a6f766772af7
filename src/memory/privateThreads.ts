import path from 'node:path';
import { listNames } from './dataFiles';
import { NAMES } from './layout';

/**
 * Private threads as the data root shows them: the one rule every surface that lists or reads
 * threads from disk asks (the audit, the dashboard, `minutes mcp`, `minutes pack create`).
 *
 * Discord says a thread is private only on its events (bot/intake/refs.ts); on disk the sign is where the
 * bot filed the thread's durable records. A private thread keeps its own MEMORY.md, HISTORY.md,
 * condensations, playbooks, ledger and context.json inside its folder (layout.ts, channelLayout:
 * its first contact writes MEMORY.md there from the template), while a public thread's all go to
 * its channel. Any one of them marks the folder private, so a person deleting one file does not make
 * what is left public: when in doubt, closed.
 */
const OWN_RECORDS = new Set<string>([NAMES.memory, NAMES.history, NAMES.historyArchive, NAMES.condensations, NAMES.playbooks]);
const OWN_STATE = new Set<string>([NAMES.ledger, NAMES.contextData]);

/** Whether `threadDir` (`<guild>/<channel>/threads/<thread>`) is a private thread's folder: two listings at most. */
export async function isPrivateThreadFolder(threadDir: string): Promise<boolean> {
  // A missing or unreadable folder lists as empty: then it holds nothing of anyone's.
  const names = await listNames(threadDir);
  if (names.some((n) => OWN_RECORDS.has(n))) return true;
  if (!names.includes(NAMES.state)) return false;
  return (await listNames(path.join(threadDir, NAMES.state))).some((n) => OWN_STATE.has(n));
}

/**
 * Whether a surface outside a conversation (the dashboard, `minutes mcp`, `minutes pack`) may show
 * it, or a package made from it: anything but a private thread, and a private thread only when the
 * operator opted in (`--include-private`). Inside the thread itself the bot needs no such leave.
 */
export function shownOutsideItsThread(from: { privateThread?: boolean }, o: { includePrivate?: boolean }): boolean {
  return from.privateThread !== true || o.includePrivate === true;
}
