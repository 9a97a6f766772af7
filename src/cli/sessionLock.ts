import fs from 'node:fs';
import path from 'node:path';
import { LeaseHolder } from '../condense/saga/ledgerSchema';
import { leaseHolderGone, thisProcess } from '../condense/saga/leases';

/**
 * One console session per channel. Each session holds the conversation in memory and writes it
 * whole after every reply, so two sessions on one channel overwrite each other's turns (62 of 120
 * kept, issue 15). The second is refused instead. The lock is a file created exclusively
 * (`wx`); one left by a killed session (same host, pid gone) is taken over.
 */
export type SessionLock = { release(): void } | { busy: LeaseHolder };

export function acquireSessionLock(stateDir: string): SessionLock {
  const file = path.join(stateDir, 'console.lock');
  fs.mkdirSync(stateDir, { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(thisProcess()), { flag: 'wx' });
      return { release: () => fs.rmSync(file, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder: LeaseHolder | undefined;
    try {
      const read = LeaseHolder.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
      holder = read.success ? read.data : undefined;
    } catch {
      holder = undefined;
    }
    // Unreadable (a torn write, not a holder's shape) or its process gone: stale, taken over. A live holder blocks.
    if (holder && !leaseHolderGone(holder)) return { busy: holder };
    fs.rmSync(file, { force: true });
  }
  throw new Error(`could not take the console lock ${file}; remove it if no console session is running`);
}
