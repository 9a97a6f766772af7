import { z } from 'zod';
import { atomicWrite } from '../memory/atomicWrite';
import { readTextOrNull } from '../memory/dataFiles';
import { consoleChannels } from '../memory/dataRootIndex';
import { PackageServer, serverLabel, serverOf } from '../memory/layout';
import { ChannelRef, refLabel } from '../memory/paths';
import { conversationFolders } from '../memory/serverFolders';
import type { ChannelStore } from '../memory/store';
import { PackageError } from './errors';
import { ContextPackage, oneLine, packageTokens } from './model';
import { checkVisible, describeServer, readPackage, removePackage } from './library';
import { sameServer } from './refs';

/**
 * Which packages are active in a conversation: `.minutes/packages.json` in its own folder (a thread
 * has its own), written through the store under the channel's lock. The chat engine reads it every
 * turn (active.ts) and puts the packages' items into the prompt's stable part.
 */
export const ActiveEntry = z.looseObject({ name: z.string(), id: z.string(), since: z.string(), by: z.string() });
export type ActiveEntry = z.infer<typeof ActiveEntry>;
export const ActiveState = z.looseObject({ active: z.array(ActiveEntry) });
export type ActiveState = z.infer<typeof ActiveState>;

/** At most this many packages at once in one conversation, and this many tokens of their items in all. */
export const MAX_ACTIVE_PACKAGES = 5;
export const MAX_ACTIVE_TOKENS = 8_000;

export interface ActivationDeps {
  store: ChannelStore;
  clock?: () => Date;
}

export interface ActivateRequest {
  target: ChannelRef;
  name: string;
  actor: string;
  /** Whose package: the target's own server unless said (a package of another server is refused). */
  server?: PackageServer;
}

/** Activates a package in a conversation; `already` when it was active there. */
export async function activatePackage(deps: ActivationDeps, req: ActivateRequest): Promise<{ pkg: ContextPackage; already: boolean }> {
  const here = serverOf(req.target);
  const server = req.server ?? here;
  if (!sameServer(server, here)) throw otherServer(req.name, serverLabel(server), here);
  const { pkg } = await readPackage(deps.store, server, req.name);
  // A file copied by hand from another server's folder still names the server it was made for.
  if (pkg.server !== serverLabel(here)) throw otherServer(req.name, pkg.server, here);
  checkVisible(pkg, req.target);
  let already = false;
  await changeState(deps.store, req.target, async (state) => {
    if (state.active.some((a) => a.name === req.name)) {
      already = true;
      return state;
    }
    if (state.active.length >= MAX_ACTIVE_PACKAGES) {
      throw new PackageError('too-many-active', `${MAX_ACTIVE_PACKAGES} packages are active here already: deactivate one first (/pack deactivate NAME)`);
    }
    let tokens = packageTokens(pkg.items);
    for (const a of state.active) tokens += await tokensOf(deps.store, here, a.name);
    if (tokens > MAX_ACTIVE_TOKENS) {
      throw new PackageError(
        'too-many-active',
        `with ${pkg.name} the active packages here would hold ~${tokens} tokens, more than ${MAX_ACTIVE_TOKENS}: deactivate one, or refresh it with a smaller budget`,
      );
    }
    const since = (deps.clock ? deps.clock() : new Date()).toISOString();
    return { ...state, active: [...state.active, { name: pkg.name, id: pkg.id, since, by: oneLine(req.actor, 100) || 'someone' }] };
  });
  return { pkg, already };
}

/** Deactivates a package in a conversation; false when it was not active there. */
export async function deactivatePackage(store: ChannelStore, target: ChannelRef, name: string): Promise<boolean> {
  let was = false;
  await changeState(store, target, async (state) => {
    was = state.active.some((a) => a.name === name);
    return was ? { ...state, active: state.active.filter((a) => a.name !== name) } : state;
  });
  return was;
}

/** The packages active in a conversation, as its state file lists them (read only). */
export async function activeIn(store: ChannelStore, ref: ChannelRef): Promise<ActiveEntry[]> {
  return readActive(store.paths(ref).activePackages);
}

export interface Activation extends ActiveEntry {
  /** The conversation (refLabel). */
  conversation: string;
  ref: ChannelRef;
}

/** Every conversation of the server where the package is active (read only: nothing is created). */
export async function whereActive(store: ChannelStore, server: PackageServer, name: string): Promise<Activation[]> {
  const out: Activation[] = [];
  for (const ref of await conversationsOf(store.root, server)) {
    for (const a of await activeIn(store, ref)) if (a.name === name) out.push({ ...a, conversation: refLabel(ref), ref });
  }
  return out;
}

/** Deletes a package: it is deactivated everywhere first, so no conversation keeps a dangling entry. */
export async function deletePackage(
  store: ChannelStore,
  server: PackageServer,
  name: string,
  viewer?: ChannelRef,
): Promise<{ pkg: ContextPackage; deactivated: string[] }> {
  const { pkg } = await readPackage(store, server, name, viewer);
  const deactivated: string[] = [];
  for (const a of await whereActive(store, server, pkg.name)) {
    if (await deactivatePackage(store, a.ref, pkg.name)) deactivated.push(a.conversation);
  }
  await removePackage(store, server, name, viewer);
  return { pkg, deactivated };
}

/** The conversations of a server that have a folder: channels and their threads (public ones too), or console channels. */
export async function conversationsOf(root: string, server: PackageServer): Promise<ChannelRef[]> {
  if (server.kind === 'local') return (await consoleChannels(root)).map((c) => c.ref);
  return (await conversationFolders(root, server.guildId)).map((f) => ({ kind: 'discord', guildId: server.guildId, ...f }));
}

async function readActive(file: string): Promise<ActiveEntry[]> {
  const text = await readTextOrNull(file);
  if (text === null) return [];
  try {
    const parsed = ActiveState.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.active : [];
  } catch {
    return []; // a damaged file activates nothing; the next activation rewrites it
  }
}

async function changeState(store: ChannelStore, ref: ChannelRef, change: (s: ActiveState) => Promise<ActiveState>): Promise<void> {
  const p = store.paths(ref);
  await store.exclusive(p, async () => {
    const current = (await store.readState(p.activePackages, ActiveState)) ?? { active: [] };
    const next = await change(current);
    if (next !== current) await atomicWrite(p.activePackages, JSON.stringify(next, null, 2) + '\n');
  });
}

async function tokensOf(store: ChannelStore, server: PackageServer, name: string): Promise<number> {
  try {
    return packageTokens((await readPackage(store, server, name)).pkg.items);
  } catch {
    return 0; // gone or damaged: it puts nothing into the prompt
  }
}

function otherServer(name: string, owner: string, here: PackageServer): PackageError {
  const from = owner === 'local' ? 'the console channels' : `server ${owner}`;
  return new PackageError(
    'other-server',
    `package ${name} belongs to ${from}, and a package is active only in its own server (this is ${describeServer(here)}): export it and import it here to use it`,
  );
}
