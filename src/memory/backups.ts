import fs from 'node:fs/promises';
import path from 'node:path';
import { atomicWrite, isTempName } from './atomicWrite';
import type { ChannelPaths } from './layout';

/** Backups kept per file: enough to undo a bad day, few enough not to grow without bound. */
export const BACKUPS_KEPT = 5;

export function backupDir(p: ChannelPaths): string {
  return p.backups;
}

/**
 * State files (ledger, context.json) are rewritten at every step of a condensation, five times in
 * one run: a backup per write would rotate the state from before the run out of the five slots.
 * Within this long after a backup, a state file is not backed up again, so the slot kept is the one
 * from before the burst (the condensation lease is as long: one run fits in it).
 */
export const STATE_BACKUP_BURST_MS = 10 * 60_000;

const backupBase = (p: ChannelPaths, file: string) => path.relative(p.channelDir, file).replace(/[\\/]/g, '__');
const stampOf = (at: Date) => at.toISOString().replace(/[:.]/g, '-');

/** When the newest backup of `file` was taken (from its name), or null when it has none. */
export async function newestBackupAt(p: ChannelPaths, file: string): Promise<Date | null> {
  const base = backupBase(p, file);
  // Silent on purpose: a missing file or folder is the empty case.
  const names = (await fs.readdir(backupDir(p)).catch(() => [] as string[])).filter((f) => f.startsWith(`${base}.`) && f.endsWith('.bak')).sort();
  const m = /\.(\d{4}-\d\d-\d\dT\d\d)-(\d\d)-(\d\d)-(\d{3})Z\.bak$/.exec(names[names.length - 1] ?? '');
  return m ? new Date(`${m[1]}:${m[2]}:${m[3]}.${m[4]}Z`) : null;
}

export async function backedUpWithinBurst(p: ChannelPaths, file: string, now: Date): Promise<boolean> {
  const last = await newestBackupAt(p, file);
  const age = last ? now.getTime() - last.getTime() : Infinity;
  return age >= 0 && age < STATE_BACKUP_BURST_MS;
}

/** Keeps `content` as the newest backup of `file` (markdown or a `.minutes/` state file). */
export async function keepBackup(p: ChannelPaths, file: string, content: string, at: Date): Promise<void> {
  const dir = backupDir(p);
  const base = backupBase(p, file);
  const stamp = stampOf(at);
  await atomicWrite(path.join(dir, `${base}.${stamp}.bak`), content);
  const mine = (await fs.readdir(dir)).filter((f) => f.startsWith(`${base}.`) && f.endsWith('.bak')).sort();
  for (const old of mine.slice(0, Math.max(0, mine.length - BACKUPS_KEPT))) {
    await fs.rm(path.join(dir, old), { force: true });
  }
}

/**
 * A crash leaves temp files behind: `.<name>.minutes-tmp-<hex>` (atomicWrite.ts) next to each kind
 * of file we write, and, from versions that wrote with write-file-atomic, `<name>.<digits>` — those
 * only in the bot's own `.minutes/` folders, since `MEMORY.md.20250101` may be a person's copy.
 */
const LEGACY = /^[^/\\]+\.(json|bak)\.\d+$/;

/** The folders we write into, each once, and whether it is one of the bot's own (legacy names swept there). */
function sweptDirs(p: ChannelPaths): Map<string, boolean> {
  const dirs = new Map<string, boolean>();
  for (const d of [p.channelDir, p.convDir, path.dirname(p.memory), p.condensations, p.playbooks]) dirs.set(d, dirs.get(d) ?? false);
  for (const d of [p.channelStateDir, p.stateDir, backupDir(p)]) dirs.set(d, true);
  return dirs;
}

/** Younger temp files may belong to a write in flight (another process on the same folder). */
export const LEFTOVER_MIN_AGE_MS = 60_000;

/** Removes temp files a crash left behind; returns the paths removed. */
export async function sweepLeftovers(p: ChannelPaths, now: number = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const [dir, ownFolder] of sweptDirs(p)) {
    // Silent on purpose: a missing file or folder is the empty case.
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    for (const n of names.filter((x) => isTempName(x) || (ownFolder && LEGACY.test(x)))) {
      const file = path.join(dir, n);
      // Silent on purpose: a missing file or folder is the empty case.
      const st = await fs.lstat(file).catch(() => null);
      if (!st?.isFile() || now - st.mtimeMs < LEFTOVER_MIN_AGE_MS) continue;
      await fs.rm(file, { force: true });
      removed.push(file);
    }
  }
  return removed;
}
