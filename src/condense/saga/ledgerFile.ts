import type { ChannelRef } from '../../memory/paths';
import { ChannelStore } from '../../memory/store';
import type { ChannelTx } from '../../memory/channelTx';
import { MalformedStateError } from '../../memory/storeErrors';
import { EMPTY_LEDGER, Ledger } from './ledgerSchema';

/** Reading and rewriting a conversation's ledger (`.minutes/ledger.json`, see memory/layout.ts). */

/** Strict: a ledger that does not parse is refused, not read as empty (that would redo every condensation). */
export function readLedger(store: ChannelStore, ref: ChannelRef): Promise<Ledger> {
  return readLedgerFile(store, store.paths(ref).ledger);
}

async function readLedgerFile(store: ChannelStore, file: string): Promise<Ledger> {
  const l = await store.readState(file, Ledger, { strict: true });
  return l ?? { ...EMPTY_LEDGER, entries: {} };
}

/**
 * Read-modify-write of the ledger of the channel whose exclusive section `tx` is: two
 * condensations of one channel must not lose each other's entries.
 */
export async function mutateLedgerIn<T>(store: ChannelStore, tx: ChannelTx, fn: (l: Ledger) => T): Promise<T> {
  const l = await readLedgerFile(store, tx.p.ledger);
  const out = fn(l);
  await tx.writeState(tx.p.ledger, l);
  return out;
}

export async function mutateLedger<T>(store: ChannelStore, ref: ChannelRef, fn: (l: Ledger) => T): Promise<T> {
  return store.exclusive(store.paths(ref), (tx) => mutateLedgerIn(store, tx, fn));
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
