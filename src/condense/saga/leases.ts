import os from 'node:os';
import type { ChannelRef } from '../../memory/paths';
import { ChannelStore } from '../../memory/store';
import { mutateLedger, readLedger } from './ledgerFile';
import { LeaseHolder } from './ledgerSchema';

/**
 * Leases: a running condensation holds its ledger key for LEASE_MS, naming the process that holds
 * it, so a second run waits and a crashed one is taken over (also the console's session lock).
 */
/** How long a running condensation holds its key against a second run. */
export const LEASE_MS = 10 * 60_000;

export function thisProcess(): LeaseHolder {
  return { host: os.hostname(), pid: process.pid };
}

/**
 * Whether a lease's holder is known to be dead: same host, not this process, and no process with
 * its pid (kill 0 answers ESRCH). A holder on another host, or one we cannot check, is alive.
 */
export function leaseHolderGone(holder: LeaseHolder | undefined): boolean {
  if (!holder || holder.host !== os.hostname() || holder.pid === process.pid || !Number.isInteger(holder.pid) || holder.pid <= 0) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * At start-up no condensation of this process is running, so a 'running' entry is one a crashed
 * or killed process left behind: release its lease so the next request or retry resumes it now
 * rather than after the lease runs out. (One bot process owns a channel folder.)
 */
export async function releaseLeases(store: ChannelStore, ref: ChannelRef): Promise<number> {
  const l = await readLedger(store, ref);
  if (!Object.values(l.entries).some((e) => e.status === 'running' && e.leaseUntil && Date.parse(e.leaseUntil) > 0)) return 0;
  return mutateLedger(store, ref, (x) => {
    let n = 0;
    for (const e of Object.values(x.entries)) {
      if (e.status === 'running' && e.leaseUntil && Date.parse(e.leaseUntil) > 0) {
        // Expired, not removed: an expired lease is what marks a run as interrupted and retryable.
        e.leaseUntil = new Date(0).toISOString();
        n++;
      }
    }
    return n;
  });
}
