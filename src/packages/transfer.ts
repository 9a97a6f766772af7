import { PackageServer, serverLabel } from '../memory/layout';
import type { ChannelStore } from '../memory/store';
import { containsSecret } from '../shared/secrets';
import { PackageError } from './errors';
import { parsePackage } from './format';
import { addPackage, describeServer, readPackage } from './library';
import { serverFromLabel } from './refs';
import { ContextPackage, MAX_ITEM_CHARS, MAX_LABEL_CHARS, MAX_PACKAGE_FILE_BYTES } from './model';

/**
 * Moving a package between servers or data roots as one file a person can read: export gives the
 * package file itself, checked; import checks a file (size, UTF-8, format, hash, limits, secrets)
 * before anything is written, and writes it only if no package of that name exists.
 */

/** The package as one file; refused for a package of a private thread (its items never leave it). */
export async function exportPackage(store: ChannelStore, server: PackageServer, name: string): Promise<string> {
  const { pkg, text, hashOk } = await readPackage(store, server, name);
  if (pkg.source.privateThread) {
    throw new PackageError('private-thread', `package ${name} holds items from a private thread, which never leave it: it cannot be exported`);
  }
  if (!hashOk) {
    throw new PackageError(
      'hash-mismatch',
      `package ${name} was edited by hand since Minutes wrote it (its hash does not match): refresh it (/pack refresh) before exporting it`,
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
  const { pkg } = parsePackage(text, { strict: true, label });
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
  // A package imported into another server belongs to that one now; where it came from is kept.
  const stored: ContextPackage = moved ? { ...pkg, server: serverLabel(server), imported: { fromServer: pkg.server, at } } : pkg;
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
