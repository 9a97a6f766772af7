import crypto from 'node:crypto';
import { packagesDir, PackageServer, serverLabel, serverOf } from '../memory/layout';
import { createPackageText, listPackageNames, readPackageText, removePackageText, replacePackageText } from '../memory/packageFiles';
import { ChannelRef, isPackageName, refLabel } from '../memory/paths';
import { exists as pathExists } from '../memory/dataFiles';
import { listServerIds } from '../memory/dataRootIndex';
import type { ChannelStore } from '../memory/store';
import { NotUtf8Error } from '../memory/atomicWrite';
import { PackageKey, packageKey, PackageKeyError, readPackageKey } from '../memory/packageKey';
import { redactSecrets } from '../shared/secrets';
import { PackageError } from './errors';
import { parsePackage, renderPackage } from './format';
import { gatherItems, GatherDeps } from './gather';
import { ContextPackage, DEFAULT_BUDGET, fitBudget, itemKey, MAX_BUDGET, oneLine, PackageBudget, PackageItem, PackageRecipe, packageTokens } from './model';
import { refFromLabel } from './refs';

/**
 * The packages of a server: create, read, list, refresh, delete. Reads and writes go through the
 * store's package files (memory/packageFiles.ts); writes of one server's packages run one at a
 * time in this process (the store's queue), and each is conditional on what is on disk, so the bot
 * and `minutes pack` never overwrite each other.
 */
export interface PackageDeps extends GatherDeps {
  clock?: () => Date;
}

export interface CreateRequest {
  name: string;
  /** The conversation whose memory the recipes run over. */
  from: ChannelRef;
  query?: string;
  /** Named items: MEMORY.md entry ids, condensation files, `CONTEXT.md#section`. */
  items?: string[];
  budget?: Partial<PackageBudget>;
  title?: string;
  intent?: string;
  /** Who made it (a name, or `console`). */
  actor: string;
}

export interface Gathered {
  pkg: ContextPackage;
  /** Items the recipes found that the budget left out. */
  leftOut: PackageItem[];
}

export async function createPackage(deps: PackageDeps, req: CreateRequest): Promise<Gathered> {
  checkName(req.name);
  const budget = checkBudget(req.budget);
  const recipes: PackageRecipe[] = [];
  const named = (req.items ?? []).map((s) => s.trim()).filter(Boolean);
  if (named.length) recipes.push({ kind: 'items', items: named.map((n) => oneLine(redactSecrets(n))) });
  const query = oneLine(redactSecrets(req.query ?? ''));
  if (query) recipes.push({ kind: 'query', query });
  if (!recipes.length) throw new PackageError('no-recipe', 'a package needs a query (--query TEXT) or named items (--item ID), or both');
  const server = serverOf(req.from);
  const dir = packagesDir(deps.store.root, server);
  return inQueue(deps.store, dir, async () => {
    if ((await readText(dir, req.name)) !== null) throw exists(req.name, server);
    const { kept, left } = fitBudget(await gatherItems(deps, req.from, recipes), budget);
    if (!kept.length) {
      throw new PackageError(
        'nothing-found',
        `nothing in ${refLabel(req.from)}'s memory matches${query ? ` "${query}"` : ''}: try other words (minutes search shows what memory has)`,
      );
    }
    const created = now(deps).toISOString();
    const pkg: ContextPackage = {
      id: `pkg-${crypto
        .createHash('sha256')
        .update(`${serverLabel(server)}\u0000${req.name}\u0000${created}`)
        .digest('hex')
        .slice(0, 12)}`,
      name: req.name,
      title: oneLine(redactSecrets(req.title ?? '')) || req.name,
      intent: oneLine(redactSecrets(req.intent ?? '')) || (query ? `What ${refLabel(req.from)} knows about: ${query}` : ''),
      server: serverLabel(server),
      source: { channel: refLabel(req.from), ...(req.from.kind === 'discord' && req.from.privateThread ? { privateThread: true } : {}) },
      created,
      createdBy: oneLine(req.actor, 100) || 'someone',
      budget,
      recipes,
      items: kept,
    };
    if (!(await createPackageText(dir, req.name, renderPackage(pkg, await signingKey(deps.store))))) throw exists(req.name, server);
    return { pkg, leftOut: left };
  });
}

export interface StoredPackage {
  pkg: ContextPackage;
  /** The file's text as stored. */
  text: string;
  /** True only when this data root's key signed the file: false when it was edited by hand, copied in, or written before packages were signed. */
  hashOk: boolean;
}

/**
 * A server's package, read and checked. With a `viewer` (the conversation asking), a package that
 * holds a private thread's items is refused anywhere but in that thread.
 */
export async function readPackage(store: ChannelStore, server: PackageServer, name: string, viewer?: ChannelRef): Promise<StoredPackage> {
  checkName(name);
  const text = await readText(packagesDir(store.root, server), name);
  if (text === null) throw new PackageError('not-found', `no package "${name}" in ${describeServer(server)}: /pack list (or minutes pack list) shows them`);
  const { pkg, hashOk } = parsePackage(text, { key: await checkingKey(store), label: `package ${name}` });
  if (viewer) checkVisible(pkg, viewer);
  return { pkg, text, hashOk };
}

/** A package made in a private thread is seen, explained and activated only in that thread. */
export function checkVisible(pkg: ContextPackage, viewer: ChannelRef): void {
  if (pkg.source.privateThread && refLabel(viewer) !== pkg.source.channel) {
    throw new PackageError('private-thread', `package ${pkg.name} holds items from a private thread, which never leave it: use it in that thread only`);
  }
}

export interface PackageSummary {
  name: string;
  title: string;
  source: string;
  items: number;
  tokens: number;
  privateThread: boolean;
  /** Taken in on the operator's `--trust`: not signed by this data root when it came. */
  imported: boolean;
  /** Signed by this data root's key (false: edited by hand, copied in, or written before packages were signed). */
  signed: boolean;
  /** Why it could not be read, instead of the fields above (which are then empty). */
  problem?: string;
}

/** The server's packages, by name; with a viewer, private-thread packages of other conversations are left out. */
export async function listPackages(store: ChannelStore, server: PackageServer, viewer?: ChannelRef): Promise<PackageSummary[]> {
  const dir = packagesDir(store.root, server);
  const out: PackageSummary[] = [];
  for (const name of await listPackageNames(dir)) {
    try {
      const { pkg, hashOk } = await readPackage(store, server, name);
      if (viewer && pkg.source.privateThread && refLabel(viewer) !== pkg.source.channel) continue;
      const tokens = packageTokens(pkg.items);
      out.push({
        name,
        title: pkg.title,
        source: pkg.source.channel,
        items: pkg.items.length,
        tokens,
        privateThread: pkg.source.privateThread === true,
        imported: pkg.imported?.unverified === true,
        signed: hashOk,
      });
    } catch (err) {
      if (viewer) continue;
      const problem = err instanceof Error ? err.message : String(err);
      out.push({ name, title: '', source: '', items: 0, tokens: 0, privateThread: false, imported: false, signed: false, problem });
    }
  }
  return out;
}

export interface Refreshed extends Gathered {
  added: PackageItem[];
  removed: PackageItem[];
  unchanged: number;
  /** False when the recipes found the same items: the file was left as it was. */
  changed: boolean;
}

/** Runs the package's recipes again over its source conversation and keeps what they find now. */
export async function refreshPackage(deps: PackageDeps, server: PackageServer, name: string, viewer?: ChannelRef): Promise<Refreshed> {
  const dir = packagesDir(deps.store.root, server);
  return inQueue(deps.store, dir, async () => {
    const { pkg, text, hashOk } = await readPackage(deps.store, server, name, viewer);
    const from = refFromLabel(pkg.source.channel, pkg.source.privateThread);
    if (!from || serverLabel(serverOf(from)) !== pkg.server) {
      throw new PackageError(
        'other-server',
        `package ${name} was made in ${pkg.source.channel}, which is not a conversation of this server, so its recipes cannot run here`,
      );
    }
    const { kept, left } = fitBudget(await gatherItems(deps, from, pkg.recipes), pkg.budget);
    const before = new Set(pkg.items.map(itemKey));
    const after = new Set(kept.map(itemKey));
    const added = kept.filter((it) => !before.has(itemKey(it)));
    const removed = pkg.items.filter((it) => !after.has(itemKey(it)));
    const same = (a: PackageItem, b: PackageItem | undefined) => !!b && itemKey(a) === itemKey(b) && a.date === b.date && a.recipe === b.recipe;
    const changed = kept.length !== pkg.items.length || kept.some((it, i) => !same(it, pkg.items[i]));
    const next: ContextPackage = changed ? { ...pkg, items: kept, refreshed: now(deps).toISOString() } : pkg;
    // A file this data root did not sign (edited by hand, or from before packages were signed) is signed again, as it now reads.
    const rewrite = changed || !hashOk;
    if (rewrite && !(await replacePackageText(dir, name, text, renderPackage(next, await signingKey(deps.store))))) throw changedMeanwhile(name);
    return { pkg: next, leftOut: left, added, removed, unchanged: kept.length - added.length, changed };
  });
}

/** Removes a package file (the caller deactivates it first; see activation.ts). */
export async function removePackage(store: ChannelStore, server: PackageServer, name: string, viewer?: ChannelRef): Promise<ContextPackage> {
  const dir = packagesDir(store.root, server);
  return inQueue(store, dir, async () => {
    const { pkg, text } = await readPackage(store, server, name, viewer);
    if (!(await removePackageText(dir, name, text))) throw changedMeanwhile(name);
    return pkg;
  });
}

/** Writes a package that does not exist yet (an import). */
export async function addPackage(store: ChannelStore, server: PackageServer, pkg: ContextPackage): Promise<void> {
  const dir = packagesDir(store.root, server);
  await inQueue(store, dir, async () => {
    if (!(await createPackageText(dir, pkg.name, renderPackage(pkg, await signingKey(store))))) throw exists(pkg.name, server);
  });
}

/** The data root's key, made on first use: for a write, which a damaged key file stops (it is never replaced). */
export async function signingKey(store: ChannelStore): Promise<PackageKey> {
  try {
    return await packageKey(store.root);
  } catch (err) {
    if (err instanceof PackageKeyError) throw new PackageError('bad-key', err.message);
    throw err;
  }
}

/** The key if there is one, for checking a signature; none made here (read-only surfaces call this). A damaged one checks nothing. */
export async function checkingKey(store: ChannelStore): Promise<PackageKey | null> {
  try {
    return await readPackageKey(store.root);
  } catch (err) {
    if (err instanceof PackageKeyError) return null;
    throw err;
  }
}

/** Every server of the data root that has a packages folder: the console channels first, then guilds by id. */
export async function serversWithPackages(root: string): Promise<PackageServer[]> {
  const out: PackageServer[] = [];
  if (await pathExists(packagesDir(root, { kind: 'local' }))) out.push({ kind: 'local' });
  for (const g of await listServerIds(root)) {
    const server: PackageServer = { kind: 'discord', guildId: g };
    if (await pathExists(packagesDir(root, server))) out.push(server);
  }
  return out;
}

/** The servers that have a package of this name (a command that names no server looks it up). */
export async function serversHolding(root: string, name: string): Promise<PackageServer[]> {
  checkName(name);
  const out: PackageServer[] = [];
  for (const server of await serversWithPackages(root)) if ((await listPackageNames(packagesDir(root, server))).includes(name)) out.push(server);
  return out;
}

export function describeServer(server: PackageServer): string {
  return server.kind === 'local' ? 'the console channels (local/)' : `server ${server.guildId}`;
}

/** One server's package writes at a time in this process: a create's check-then-write is not interleaved. */
function inQueue<T>(store: ChannelStore, dir: string, task: () => Promise<T>): Promise<T> {
  return store.queue.run(`packages:${dir}`, task);
}

async function readText(dir: string, name: string): Promise<string | null> {
  try {
    return await readPackageText(dir, name);
  } catch (err) {
    if (err instanceof NotUtf8Error) throw new PackageError('bad-format', `package ${name} is not valid UTF-8: re-save it as UTF-8, or delete and recreate it`);
    throw err;
  }
}

function checkName(name: string): void {
  if (!isPackageName(name)) {
    throw new PackageError(
      'bad-name',
      `invalid package name "${oneLine(name, 80)}": use 1-64 lowercase letters, digits, "-" or "_", starting with a letter or digit`,
    );
  }
}

function checkBudget(b: Partial<PackageBudget> = {}): PackageBudget {
  const budget = { maxItems: b.maxItems ?? DEFAULT_BUDGET.maxItems, maxTokens: b.maxTokens ?? DEFAULT_BUDGET.maxTokens };
  if (!Number.isInteger(budget.maxItems) || budget.maxItems < 1 || budget.maxItems > MAX_BUDGET.maxItems) {
    throw new PackageError('bad-budget', `--max-items must be a whole number from 1 to ${MAX_BUDGET.maxItems}, not ${budget.maxItems}`);
  }
  if (!Number.isInteger(budget.maxTokens) || budget.maxTokens < 1 || budget.maxTokens > MAX_BUDGET.maxTokens) {
    throw new PackageError('bad-budget', `--max-tokens must be a whole number from 1 to ${MAX_BUDGET.maxTokens}, not ${budget.maxTokens}`);
  }
  return budget;
}

function exists(name: string, server: PackageServer): PackageError {
  return new PackageError('exists', `a package "${name}" already exists in ${describeServer(server)}: pick another name, or delete it first`);
}

function changedMeanwhile(name: string): PackageError {
  return new PackageError('changed', `package ${name} changed while this ran (another command or the bot wrote it): try again`);
}

function now(deps: { clock?: () => Date }): Date {
  return deps.clock ? deps.clock() : new Date();
}
