import fs from 'node:fs';
import path from 'node:path';
import { isSnowflake } from './paths';

/**
 * Whether a folder looks like a Minutes data root, for the commands that read one whole (`audit`,
 * `dashboard`): "All 0 channel folders are consistent" for a mistyped path, a home folder or one
 * channel's folder would hide the mistake. A data root holds server folders (snowflake names),
 * `local/` or `workspace/`. An empty folder (or one with only hidden entries, like the vector cache)
 * is a fresh data root the bot has not written to yet: accepted, and said so.
 */
export type DataRootShape =
  | { kind: 'root' }
  | { kind: 'empty' }
  | { kind: 'missing' | 'file' }
  /** A channel's own folder (memory files at its top) named as the data root. */
  | { kind: 'channel' }
  | { kind: 'other' };

const CHANNEL_FILES = new Set(['MEMORY.md', 'CONTEXT.md', 'SESSION.md', 'HISTORY.md', 'condensations']);

export function dataRootShape(dir: string): DataRootShape {
  const st = fs.statSync(dir, { throwIfNoEntry: false });
  if (!st) return { kind: 'missing' };
  if (!st.isDirectory()) return { kind: 'file' };
  const entries = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => !e.name.startsWith('.'));
  if (entries.length === 0) return { kind: 'empty' };
  const isDir = (e: fs.Dirent) =>
    e.isDirectory() || (e.isSymbolicLink() && fs.statSync(path.join(dir, e.name), { throwIfNoEntry: false })?.isDirectory() === true);
  const root = entries.some((e) => isDir(e) && (isSnowflake(e.name) || e.name === 'local' || e.name === 'workspace'));
  if (root) return { kind: 'root' };
  return entries.some((e) => CHANNEL_FILES.has(e.name)) ? { kind: 'channel' } : { kind: 'other' };
}

/**
 * One line (without the command's name) saying why `dir` cannot be read as a data root, or null
 * when it can. `channelDirHint` names the option that takes one channel's folder, for commands that have one.
 */
export function dataRootProblem(dir: string, channelDirHint?: string): string | null {
  const shape = dataRootShape(dir);
  const fix = 'set MINUTES_DATA_DIR to the folder the bot writes (by default ./channels, where you run npm start)';
  switch (shape.kind) {
    case 'root':
    case 'empty':
      return null;
    case 'missing':
      return `the data root ${dir} does not exist: ${fix}`;
    case 'file':
      return `the data root ${dir} is not a folder: ${fix}`;
    case 'channel':
      return `${dir} is one channel's folder, not a data root: ${fix}${channelDirHint ? `, or use ${channelDirHint} ${dir}` : ''}`;
    case 'other':
      return `${dir} does not look like a Minutes data root (no server folders, local/ or workspace/ in it): ${fix}`;
  }
}
