import fs from 'node:fs';
import path from 'node:path';
import { atomicWrite } from '../../memory/atomicWrite';
import { PackageServer } from '../../memory/layout';
import { shownOutsideItsThread } from '../../memory/privateThreads';
import { ChannelStore } from '../../memory/store';
import { PackageError } from '../../packages/errors';
import { explainJson, explainPackage, formatCreated, formatExplain, formatList, formatRefreshed } from '../../packages/explain';
import { createPackage, describeServer, listPackages, readPackage, refreshPackage, serversHolding, serversWithPackages } from '../../packages/library';
import type { PackageSummary } from '../../packages/library';
import { deletePackage } from '../../packages/activation';
import { MAX_PACKAGE_FILE_BYTES } from '../../packages/model';
import { refFromDir, refFromLabel, serverFromLabel } from '../../packages/refs';
import { exportPackage, importPackage } from '../../packages/transfer';
import type { CliIO } from '../../shared/cliIO';
import { settingsFor } from './common';
import { OpenedRecall, openRecall, RecallSetupOptions } from './recallSetup';
import type { SearchRequest } from '../../recall/service';
import type { RecallItem } from '../../recall/types';

/**
 * `minutes pack create|explain|list|refresh|delete|export|import`: context packages over a data root
 * (`--data-dir`, else MINUTES_DATA_DIR as the bot uses it). What a package is, and the rules, are in
 * src/packages/; this module reads arguments and files and prints. A refusal is one line on stderr
 * (`minutes pack: …`) and exit code 2, with nothing changed.
 */
export interface PackCommonOptions {
  dataDir?: string;
  /** `local` or a guild id: whose package (looked up by name when absent). */
  server?: string;
}

export interface PackCreateOptions extends PackCommonOptions {
  channelDir: string;
  query?: string;
  item?: string[];
  maxItems?: number;
  maxTokens?: number;
  title?: string;
  intent?: string;
  semantic?: string;
  vectorCache?: string;
  /** `--include-private`: a private thread's folder may be gathered (the package stays usable only there). */
  includePrivate?: boolean;
}

const fail = (io: CliIO, msg: string): number => {
  io.stderr.write(`minutes pack: ${msg}\n`);
  return 2;
};

/** A problem already printed as its one line (opening recall): the command only exits. */
class AlreadyReported extends Error {}

/** Runs one subcommand; a PackageError (or a wrong argument) is one line and exit code 2. */
async function guarded(io: CliIO, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof PackageError) return fail(io, err.message);
    if (err instanceof AlreadyReported) return 2;
    throw err;
  }
}

function dataRoot(opts: PackCommonOptions, io: CliIO): string | null {
  if (opts.dataDir !== undefined) return path.resolve(io.cwd, opts.dataDir);
  return settingsFor(io, [])?.dataDir ?? null;
}

function storeFor(opts: PackCommonOptions, io: CliIO): ChannelStore | null {
  const root = dataRoot(opts, io);
  return root === null ? null : new ChannelStore({ root });
}

function parseServer(label: string): PackageServer {
  const server = serverFromLabel(label);
  if (!server) throw new PackageError('bad-name', `--server must be "local" or a Discord server id, not "${label}"`);
  return server;
}

/** The server named by --server, or the one server of the data root that has a package of this name. */
async function serverOf(store: ChannelStore, name: string, opts: PackCommonOptions): Promise<PackageServer> {
  if (opts.server !== undefined) return parseServer(opts.server);
  const holding = await serversHolding(store.root, name);
  if (holding.length === 1) return holding[0];
  if (!holding.length) throw new PackageError('not-found', `no package "${name}" in ${store.root}: minutes pack list shows them`);
  throw new PackageError(
    'exists',
    `packages named "${name}" exist in ${holding.map(describeServer).join(' and ')}: pass --server local or --server <guild id>`,
  );
}

export async function runPackCreate(name: string, opts: PackCreateOptions, io: CliIO): Promise<number> {
  return guarded(io, async () => {
    const store = storeFor(opts, io);
    if (!store) return 2;
    const dir = path.resolve(io.cwd, opts.channelDir);
    const from = await refFromDir(store.root, dir);
    if (!shownOutsideItsThread(from, opts)) {
      return fail(io, `${dir} is a private thread's folder: its memory leaves it only with --include-private (the package is then usable only in that thread)`);
    }
    if (!opts.query?.trim() && !opts.item?.length) return fail(io, 'give --query TEXT, or --item ID (repeatable), or both');
    const recall = lazyRecall(io, 'pack create', { channelDir: dir, semantic: opts.semantic, vectorCache: opts.vectorCache });
    try {
      const created = await createPackage(
        { store, search: recall.search },
        {
          name,
          from,
          query: opts.query,
          items: opts.item,
          budget: { maxItems: opts.maxItems, maxTokens: opts.maxTokens },
          title: opts.title,
          intent: opts.intent,
          actor: io.env.USER || 'minutes pack',
        },
      );
      io.stdout.write(formatCreated(created) + '\n');
      return 0;
    } finally {
      await recall.close();
    }
  });
}

export async function runPackExplain(name: string, opts: PackCommonOptions & { json?: boolean; includePrivate?: boolean }, io: CliIO): Promise<number> {
  return guarded(io, async () => {
    const store = storeFor(opts, io);
    if (!store) return 2;
    const explained = await explainPackage(store, await serverOf(store, name, opts), name);
    if (!shownOutsideItsThread(explained.pkg.source, opts)) {
      return fail(io, `package ${name} holds a private thread's items: add --include-private to show them`);
    }
    io.stdout.write((opts.json ? JSON.stringify(explainJson(explained)) : formatExplain(explained)) + '\n');
    return 0;
  });
}

export async function runPackList(opts: PackCommonOptions & { json?: boolean; includePrivate?: boolean }, io: CliIO): Promise<number> {
  return guarded(io, async () => {
    const store = storeFor(opts, io);
    if (!store) return 2;
    const servers = opts.server !== undefined ? [parseServer(opts.server)] : await serversWithPackages(store.root);
    let leftOut = 0;
    const shown = (all: PackageSummary[]) => {
      const keep = all.filter((p) => shownOutsideItsThread(p, opts));
      leftOut += all.length - keep.length;
      return keep;
    };
    const listed = await Promise.all(servers.map(async (server) => ({ server, packages: shown(await listPackages(store, server)) })));
    if (leftOut) io.stderr.write(`minutes pack: ${leftOut} private thread package(s) left out: add --include-private to list them\n`);
    if (opts.json) {
      const rows = listed.flatMap(({ server, packages }) => packages.map((p) => ({ server: server.kind === 'local' ? 'local' : server.guildId, ...p })));
      io.stdout.write(JSON.stringify({ packages: rows }) + '\n');
    } else if (!listed.some((l) => l.packages.length)) {
      io.stdout.write(`No packages in ${store.root} yet: minutes pack create NAME --channel-dir DIR --query TEXT makes one.\n`);
    } else {
      for (const { server, packages } of listed) if (packages.length) io.stdout.write(`${describeServer(server)}:\n${indent(formatList(packages))}\n`);
    }
    return 0;
  });
}

export async function runPackRefresh(name: string, opts: PackCommonOptions & { semantic?: string; vectorCache?: string }, io: CliIO): Promise<number> {
  return guarded(io, async () => {
    const store = storeFor(opts, io);
    if (!store) return 2;
    const server = await serverOf(store, name, opts);
    const { pkg } = await readPackage(store, server, name);
    const from = refFromLabel(pkg.source.channel, pkg.source.privateThread);
    // Only a query recipe needs recall; refreshPackage refuses a source outside this data root first.
    const recall = lazyRecall(io, 'pack refresh', {
      channelDir: from ? store.paths(from).convDir : store.root,
      semantic: opts.semantic,
      vectorCache: opts.vectorCache,
    });
    try {
      io.stdout.write(formatRefreshed(await refreshPackage({ store, search: recall.search }, server, name)) + '\n');
      return 0;
    } finally {
      await recall.close();
    }
  });
}

export async function runPackDelete(name: string, opts: PackCommonOptions, io: CliIO): Promise<number> {
  return guarded(io, async () => {
    const store = storeFor(opts, io);
    if (!store) return 2;
    const { deactivated } = await deletePackage(store, await serverOf(store, name, opts), name);
    io.stdout.write(`Deleted package ${name}${deactivated.length ? `; it was deactivated in ${deactivated.join(', ')}` : ''}.\n`);
    return 0;
  });
}

export async function runPackExport(name: string, opts: PackCommonOptions & { out?: string }, io: CliIO): Promise<number> {
  return guarded(io, async () => {
    const store = storeFor(opts, io);
    if (!store) return 2;
    const text = await exportPackage(store, await serverOf(store, name, opts), name);
    if (opts.out === undefined) io.stdout.write(text);
    else {
      await atomicWrite(path.resolve(io.cwd, opts.out), text);
      io.stderr.write(`minutes pack: exported ${name} to ${opts.out}\n`);
    }
    return 0;
  });
}

export async function runPackImport(file: string, opts: PackCommonOptions & { trust?: boolean }, io: CliIO): Promise<number> {
  return guarded(io, async () => {
    const store = storeFor(opts, io);
    if (!store) return 2;
    const abs = path.resolve(io.cwd, file);
    let size: number;
    try {
      const st = fs.statSync(abs);
      if (!st.isFile()) return fail(io, `${file} is not a file`);
      size = st.size;
    } catch {
      return fail(io, `cannot read ${file}: check the path`);
    }
    // Refused before it is read: a large file is not a package, whatever it holds.
    if (size > MAX_PACKAGE_FILE_BYTES)
      return fail(io, `${file} has ${size} bytes, more than a package may (${MAX_PACKAGE_FILE_BYTES}): it is not a package Minutes exported`);
    const server = opts.server !== undefined ? parseServer(opts.server) : undefined;
    const { pkg, server: to } = await importPackage(store, { bytes: fs.readFileSync(abs), server, label: file, trust: opts.trust === true });
    const trusted = pkg.imported?.unverified ? ', on --trust: it was not signed by this data root, and is shown as imported' : '';
    io.stdout.write(`Imported package ${pkg.name} (${pkg.items.length} items) into ${describeServer(to)}${trusted}.\n`);
    return 0;
  });
}

/**
 * Recall opened on first use (a package of named items needs none): with meaning on, the sentence
 * model loads and the folder's lines are embedded first, as for `minutes search`. A problem opening
 * it is one line on stderr, as there, and refuses the command.
 */
function lazyRecall(io: CliIO, command: string, o: RecallSetupOptions): { search: (r: SearchRequest) => Promise<RecallItem[]>; close: () => Promise<void> } {
  let opened: Promise<OpenedRecall | number> | undefined;
  return {
    search: async (r) => {
      opened ??= openRecall(command, o, io);
      const got = await opened;
      if (typeof got === 'number') throw new AlreadyReported();
      return got.recall.search(r);
    },
    close: async () => {
      const got = await opened;
      if (got && typeof got !== 'number') await got.recall.close();
    },
  };
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}
