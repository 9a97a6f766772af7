import path from 'node:path';
import type { Finding } from '../../bot/discord/doctor';
import { listChannelRefs } from '../../condense/audit/audit';
import { readContext } from '../../condense/knowledge/contextFiles';
import { readLedger } from '../../condense/saga/ledgerFile';
import { silentLogger } from '../../log/logger';
import { KEPT_ASIDE_FIX, keptAsideUnder } from '../../memory/keptAside';
import { readShardLayout } from '../../memory/shardLayout';
import { ChannelStore } from '../../memory/store';
import { StoreError } from '../../memory/storeErrors';

/** Lines past this many are counted, not listed: the doctor's output stays readable. */
const MAX_LISTED = 20;

/**
 * `minutes doctor`'s look at the data root's files (read-only): the state files Minutes refuses
 * rather than rebuild (a channel's ledger and context.json, the shard layout) that do not parse,
 * and the copies kept aside of files it did rebuild (memory/keptAside.ts), one line each with what
 * to do.
 */
export async function dataFileFindings(root: string): Promise<Finding[]> {
  const problems: string[] = [];
  const refuse = async (read: () => Promise<unknown>): Promise<void> => {
    try {
      await read();
    } catch (err) {
      // The message names the file and says "fix or remove it".
      if (err instanceof StoreError) problems.push(err.message);
      else throw err;
    }
  };
  await refuse(() => readShardLayout(root));
  const store = new ChannelStore({ root, logger: silentLogger() });
  for (const ref of await listChannelRefs(root)) {
    await refuse(() => readLedger(store, ref));
    await refuse(() => readContext(store, ref));
  }
  for (const copy of await keptAsideUnder(root)) problems.push(`${copy} is a copy kept of a damaged file: ${KEPT_ASIDE_FIX}`);
  if (!problems.length) return [{ ok: true, check: 'data files', detail: 'every state file parses; no damaged file was kept aside' }];
  const shown = problems.slice(0, MAX_LISTED).map((detail) => ({ ok: false, check: 'data files', detail }));
  if (problems.length > MAX_LISTED) {
    shown.push({
      ok: false,
      check: 'data files',
      detail: `and ${problems.length - MAX_LISTED} more under ${path.resolve(root)}: \`minutes audit\` lists them per channel`,
    });
  }
  return shown;
}
