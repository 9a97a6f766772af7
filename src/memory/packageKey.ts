import crypto from 'node:crypto';
import { readTextIfExists, stageWrite } from './atomicWrite';
import { packageKeyFile } from './layout';
import { StoreError } from './storeErrors';

/**
 * The data root's key for context packages (`.minutes/package-key`): 32 random bytes, written as
 * 64 hex digits and a newline, readable by its owner only. A package file's hash is an HMAC with
 * it, so a file whose items were edited, or one another data root wrote, is told apart from one
 * this data root wrote: a plain SHA-256 anyone can recompute after an edit; this they cannot
 * without the key. It guards what crosses between data roots (an import), not the data root
 * itself: whoever can write its files can read the key too.
 */
export type PackageKey = Buffer;

const KEY_TEXT = /^[0-9a-f]{64}\n?$/;

/** The key file is not one Minutes wrote: never replaced, since every package signed with it would then be unsigned. */
export class PackageKeyError extends StoreError {
  override name = 'PackageKeyError';
  constructor(readonly file: string) {
    super(
      `${file} is not a key Minutes wrote (64 hex digits): restore it from a backup, or remove it (a new key is made, and this data root's packages then need /pack refresh to be signed again)`,
    );
  }
}

/** The key, or null while none has been made (read-only surfaces never make one). */
export async function readPackageKey(root: string): Promise<PackageKey | null> {
  const file = packageKeyFile(root);
  const text = await readTextIfExists(file);
  if (text === null) return null;
  if (!KEY_TEXT.test(text)) throw new PackageKeyError(file);
  return Buffer.from(text.slice(0, 64), 'hex');
}

/**
 * The key, made on first use: written to a temp file created 0600, fsynced, and linked into place
 * only if no key is there yet, so two writers (the bot and `minutes pack`) that both find none
 * still end up signing with the same one.
 */
export async function packageKey(root: string): Promise<PackageKey> {
  const found = await readPackageKey(root);
  if (found) return found;
  const staged = await stageWrite(packageKeyFile(root), `${crypto.randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  await staged.commitIfAbsent();
  const made = await readPackageKey(root);
  if (!made) throw new PackageKeyError(packageKeyFile(root));
  return made;
}
