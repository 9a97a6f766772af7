import { serverLabel, type PackageServer } from '../memory/layout';
import { ChannelStore } from '../memory/store';
import { explainJson, explainPackage } from '../packages/explain';
import { PackageError } from '../packages/errors';
import { listPackages, serversHolding } from '../packages/library';
import type { Catalog, Channel } from './catalog';
import { McpRequestError } from './errors';

/**
 * get_package: a context package's items, under the catalog's rules. A package is shown when the
 * conversation it was made from is one the client may see, or when it is active in one (its items are
 * then already part of that channel's prompt). A private thread's package is shown only with that
 * thread. A package the client may not see is answered exactly like one that does not exist.
 */
export interface PackageLookup {
  root: string;
  catalog: Catalog;
}

/** A conversation label as packages write it (`g/c`, `g/c/threads/t`, `local/name`) → the catalog keys that show it. */
function keysOf(label: string): string[] {
  const parts = label.split('/');
  if (parts.length === 4 && parts[2] === 'threads') return [`${parts[0]}/${parts[1]}/${parts[3]}`];
  return [label];
}

/** A public thread's package is visible with its channel; a private thread's only with the thread itself. */
function sourceKeys(label: string, privateThread: boolean): string[] {
  const parts = label.split('/');
  if (parts.length === 4 && parts[2] === 'threads' && !privateThread) return [`${parts[0]}/${parts[1]}`];
  return keysOf(label);
}

function serverOfChannel(c: Channel): PackageServer {
  return c.serverId ? { kind: 'discord', guildId: c.serverId } : { kind: 'local' };
}

export async function getPackage(o: PackageLookup, name: string, server?: string): Promise<Record<string, unknown>> {
  const channels = await o.catalog.list();
  const visible = new Set(channels.map((c) => c.key));
  const servers = new Map(channels.map((c) => [serverLabel(serverOfChannel(c)), serverOfChannel(c)]));
  if (server !== undefined && !servers.has(server))
    throw new McpRequestError(`no server "${server}" among those this server shows: use a server_id from list_channels, or "local"`);
  const store = new ChannelStore({ root: o.root });
  let holding: PackageServer[];
  try {
    holding = (await serversHolding(o.root, name)).filter((s) => servers.has(serverLabel(s)) && (server === undefined || serverLabel(s) === server));
  } catch (err) {
    if (err instanceof PackageError) throw new McpRequestError(err.message);
    throw err;
  }
  const shown = [];
  for (const s of holding) {
    const e = await explainPackage(store, s, name).catch((err: unknown) => {
      if (err instanceof PackageError) throw new McpRequestError(err.message);
      throw err;
    });
    const fromVisible = sourceKeys(e.pkg.source.channel, e.pkg.source.privateThread === true).some((k) => visible.has(k));
    const activeVisible = e.activeIn.filter((a) => keysOf(a.conversation).some((k) => visible.has(k)));
    if (!fromVisible && (e.pkg.source.privateThread || !activeVisible.length)) continue;
    shown.push({ ...explainJson({ ...e, activeIn: activeVisible }), server: serverLabel(s) });
  }
  if (shown.length === 1) return shown[0]!;
  if (shown.length > 1)
    throw new McpRequestError(`"${name}" is a package of ${shown.length} servers: give server (one of ${shown.map((p) => p.server).join(', ')})`);
  const names = await visibleNames(o, store, [...servers.values()], visible);
  throw new McpRequestError(`no package "${name}" this server shows${names.length ? `: the packages are ${names.join(', ')}` : ' (none is shown)'}`);
}

/** The names a client may ask for, for the answer to a name that is not one of them. */
async function visibleNames(o: PackageLookup, store: ChannelStore, servers: PackageServer[], visible: Set<string>): Promise<string[]> {
  const out: string[] = [];
  for (const s of servers) {
    for (const p of await listPackages(store, s)) {
      if (!p.problem && sourceKeys(p.source, p.privateThread).some((k) => visible.has(k))) out.push(p.name);
    }
  }
  return [...new Set(out)].sort();
}
