import fs from 'node:fs/promises';
import path from 'node:path';
import { readTextForWrite, replaceIfUnchanged } from './atomicWrite';
import { keepBackup } from './backups';
import type { ChannelPaths } from './layout';
import { StoreError } from './storeErrors';

/**
 * The playbooks folder as the Secretary writes it: one file per playbook (`<slug>.md`), rewritten
 * when a condensation changes the procedure. Like every memory file: atomic, compared again just
 * before the rename (a person may be editing it), the previous version kept among the channel's
 * backups. The caller holds the channel's lock (store.exclusive).
 */
export function playbookFile(p: ChannelPaths, slug: string): string {
  return path.join(p.playbooks, `${slug}.md`);
}

/** Rewrites (or creates) one playbook file with `change`, given what is on disk now (null: none yet). */
export async function rewritePlaybookFile(p: ChannelPaths, slug: string, change: (current: string | null) => string, now: Date): Promise<void> {
  const file = playbookFile(p, slug);
  await fs.mkdir(p.playbooks, { recursive: true });
  for (let attempt = 0; attempt < 5; attempt++) {
    const cur = await readTextForWrite(file);
    const next = change(cur);
    if (next === cur) return;
    if (cur !== null) await keepBackup(p, file, cur, now);
    if (await replaceIfUnchanged(file, cur, next)) return;
  }
  throw new StoreError(`${path.basename(p.playbooks)}/${slug}.md kept changing while being written; try again`);
}
