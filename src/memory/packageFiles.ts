import fs from 'node:fs/promises';
import path from 'node:path';
import { readTextForWrite, replaceIfUnchanged, stageWrite } from './atomicWrite';
import { isPackageName } from './paths';

/**
 * A packages folder (`<guild>/packages/`, `local/packages/`): one `<name>.md` per context package.
 * Every write is atomic (temp file, fsync, rename or link) and conditional on what is on disk: a
 * new package never replaces one that appeared meanwhile, and a rewrite or removal happens only if
 * the file is still what the caller read, so two writers (the bot and `minutes pack`) cannot lose
 * each other's change. Callers serialise their own writes per folder (store.queue).
 */

/** Package names in the folder (files `<name>.md` with a valid name), sorted; none when it is missing. */
export async function listPackageNames(dir: string): Promise<string[]> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  return names
    .filter((n) => n.endsWith('.md'))
    .map((n) => n.slice(0, -3))
    .filter(isPackageName)
    .sort();
}

/** A package file's text, strictly decoded (it may be written back); null when it does not exist. */
export function readPackageText(dir: string, name: string): Promise<string | null> {
  return readTextForWrite(fileOf(dir, name));
}

/** Writes a new package; false (and nothing written) when one of that name exists. */
export async function createPackageText(dir: string, name: string, text: string): Promise<boolean> {
  const staged = await stageWrite(fileOf(dir, name), text);
  return staged.commitIfAbsent();
}

/** Replaces a package only if its file is still `before`; false when it changed meanwhile. */
export function replacePackageText(dir: string, name: string, before: string, text: string): Promise<boolean> {
  return replaceIfUnchanged(fileOf(dir, name), before, text);
}

/** Removes a package only if its file is still `before`; false when it changed or is gone. */
export async function removePackageText(dir: string, name: string, before: string): Promise<boolean> {
  const file = fileOf(dir, name);
  if ((await readTextForWrite(file)) !== before) return false;
  await fs.rm(file, { force: true });
  return true;
}

function fileOf(dir: string, name: string): string {
  // The layout checks names too (packageFile); this folder-level API must not trust its callers.
  if (!isPackageName(name)) throw new Error(`invalid package name "${name}"`);
  return path.join(dir, `${name}.md`);
}
