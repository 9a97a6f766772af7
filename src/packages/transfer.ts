import { PackageServer, serverLabel } from '../memory/layout';
import type { ChannelStore } from '../memory/store';
import { containsSecret } from '../shared/secrets';
import { PackageError } from './errors';
import { parsePackage } from './format';
import { addPackage, checkingKey, describeServer, readPackage } from './library';
import { serverFromLabel } from './refs';
import { ContextPackage, MAX_ITEM_CHARS, MAX_LABEL_CHARS, MAX_PACKAGE_FILE_BYTES } from './model';

/**
 * Moving a package between servers or data roots as one file a person can read: export gives the
 * package file itself, checked and signed by this data root; import checks a file (size, UTF-8,
 * format, signature, limits, secrets) before anything is written, and writes it only if no package
 * of that name exists. A file this data root did not sign (another data root's, edited since, or
 * exported before packages were signed) comes in only on the operator's word (`trust`), and is
 * then marked as imported that way for good (explain and list say so).
 */

/** The package as one file; refused for a package of a private thread (its items never leave it). */
export async function exportPackage(store: ChannelStore, server: PackageServer, name: string): Promise<string> {
  const { pkg, text, hashOk } = await readPackage(store, server, name);
  if (pkg.source.privateThread) {
    throw new PackageError('private-thread', `package ${name} holds items from a private thread, which never leave it: it cannot be exported`);
  }
  if (!hashOk) {
    throw new PackageError(
      'not-signed',
      `package ${name} is not signed by this data root (edited by hand, copied in, or written before packages were signed): refresh it (/pack refresh) before exporting it`,
    );
  }
  return text;
}

export interface ImportRequest {
  /** The file's bytes, as read. */
  bytes: Uint8Array;
  /** Where it goes: the server the file names unless said. */
  server?: PackageServer;
  /** Where the file came from, for messages. */
  label?: string;
  /** The operator's word (`--trust`) that a file this data root did not sign may come in, marked as imported. */
  trust?: boolean;
  clock?: () => Date;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export async function importPackage(store: ChannelStore, req: ImportRequest): Promise<{ pkg: ContextPackage; server: PackageServer }> {
  const label = req.label ?? 'the file';
  if (req.bytes.length > MAX_PACKAGE_FILE_BYTES) {
    throw new PackageError(
      'too-large',
      `${label} has ${req.bytes.length} bytes, more than a package may (${MAX_PACKAGE_FILE_BYTES}): it is not a package Minutes exported`,
    );
  }
  let text: string;
  try {
    text = strictUtf8.decode(req.bytes);
  } catch {
    throw new PackageError('bad-format', `${label} is not UTF-8 text, so it is not a package Minutes exported`);
  }
  const { pkg, hashOk, laidOut } = parsePackage(text, { key: await checkingKey(store), label });
  // The signature first: an edited item is reported as not signed, not as a format problem.
  if (!hashOk && !req.trust) {
    throw new PackageError(
      'not-signed',
      `${label} is not signed by this data root (another data root exported it, it was edited since, or it was exported before packages were signed): if you trust where it came from, import it with --trust (it is then marked as imported)`,
    );
  }
  if (!laidOut) {
    throw new PackageError(
      'bad-format',
      `${label} is not a context package Minutes wrote (it is not laid out as Minutes writes it); export it again from its server`,
    );
  }
  if (pkg.items.length > pkg.budget.maxItems || pkg.items.some((it) => it.text.length > MAX_ITEM_CHARS)) {
    throw new PackageError(
      'too-large',
      `${label} holds more than its budget allows (or an item over ${MAX_ITEM_CHARS} characters): export it again from its server`,
    );
  }
  if ([pkg.title, pkg.intent, ...pkg.recipes.map((r) => (r.kind === 'query' ? r.query : r.items.join(' ')))].some((s) => s.length > MAX_LABEL_CHARS)) {
    throw new PackageError('too-large', `${label} has a title, intent or recipe over ${MAX_LABEL_CHARS} characters: export it again from its server`);
  }
  if (pkg.source.privateThread) {
    throw new PackageError('private-thread', `${label} holds items from a private thread, which never leave it: it cannot be imported`);
  }
  const secretAt = [pkg.title, pkg.intent, ...pkg.items.map((it) => it.text)].findIndex((s) => containsSecret(s));
  if (secretAt >= 0) {
    throw new PackageError(
      'secret',
      `${label} holds what looks like a password, key or private URL (${secretAt < 2 ? 'in its title or intent' : `in item ${secretAt - 1}`}), which never enters a package: remove it and export again`,
    );
  }
  const from = serverFromLabel(pkg.server);
  if (!from) throw new PackageError('bad-format', `${label} names no server Minutes knows ("${pkg.server}")`);
  const server = req.server ?? from;
  const moved = serverLabel(server) !== pkg.server;
  const at = (req.clock ? req.clock() : new Date()).toISOString();
  // A package imported into another server belongs to that one now; where it came from is kept. One
  // taken on trust says so from now on, and keeps saying so when it moves on (the mark is signed).
  const unverified = !hashOk || pkg.imported?.unverified === true;
  const stored: ContextPackage =
    moved || !hashOk
      ? { ...pkg, server: serverLabel(server), imported: { fromServer: pkg.server, at, ...(unverified ? { unverified: true as const } : {}) } }
      : pkg;
  try {
    await addPackage(store, server, stored);
  } catch (err) {
    if (err instanceof PackageError && err.kind === 'exists') {
      throw new PackageError('exists', `a package "${pkg.name}" already exists in ${describeServer(server)}: delete it first (nothing was imported)`);
    }
    throw err;
  }
  return { pkg: stored, server };
}
