import type { ChannelRef } from '../../memory/paths';
import { ChannelStore } from '../../memory/store';
import { MalformedStateError } from '../../memory/storeErrors';
import { EMPTY_LEDGER, Ledger } from './ledgerSchema';

/** Reading and rewriting a conversation's ledger (`.minutes/ledger.json`, see memory/layout.ts). */

/** Strict: a ledger that does not parse is refused, not read as empty (that would redo every condensation). */
export async function readLedger(store: ChannelStore, ref: ChannelRef): Promise<Ledger> {
  const l = await store.readState(store.paths(ref).ledger, Ledger, { strict: true });
  return l ?? { ...EMPTY_LEDGER, entries: {} };
}

/**
 * Read-modify-write of the ledger. Call it only inside `store.exclusive` for this channel: two
 * condensations of one channel must not lose each other's entries.
 */
export async function mutateLedgerLocked<T>(store: ChannelStore, ref: ChannelRef, fn: (l: Ledger) => T): Promise<T> {
  const p = store.paths(ref);
  const l = await readLedger(store, ref);
  const out = fn(l);
  await store.writeStateLocked(p, p.ledger, l);
  return out;
}

export async function mutateLedger<T>(store: ChannelStore, ref: ChannelRef, fn: (l: Ledger) => T): Promise<T> {
  return store.exclusive(store.paths(ref), () => mutateLedgerLocked(store, ref, fn));
}

/**
 * For loops over every channel: a channel whose state file does not parse or has the wrong shape
 * (readState logged which file and how to fix it) is skipped, so one stray comma does not stop the
 * others' work.
 */
export async function skipIfMalformed<T>(work: () => Promise<T>, skipped: T): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof MalformedStateError) return skipped;
    throw err;
  }
}
