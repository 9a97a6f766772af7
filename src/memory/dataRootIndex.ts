import path from 'node:path';
import { listFolders, readTextOrNull } from './dataFiles';
import { channelPaths, folderLayout, guildDir, localDir, localRoot, NAMES, namesFile, threadDir } from './layout';
import { GuildNames } from './namesFile';
import { ChannelRef, isLocalName, isSnowflake } from './paths';
import { isPrivateThreadFolder, shownOutsideItsThread } from './privateThreads';

/**
 * The data root as the surfaces that only read it see it (the dashboard, `minutes mcp`, packages,
 * the audit, warm-up at start): its servers, their channels, the private threads that keep their
 * own records, the console channels, and the names the bot recorded for them. Everything is found
 * by listing folders whose names pass the store's own id checks, so a caller that only ever names a
 * key of this listing can reach no file the listing did not find (no traversal). Read only; a
 * missing or unreadable folder is the empty case.
 *
 * A public thread is not a conversation of this listing: its durable memory is its channel's
 * (layout.ts), and only its working state has a folder of its own.
 */
export interface Conversation {
  /** `<guild>/<channel>`, `<guild>/<channel>/<thread>` (private thread) or `local/<name>`: the URL and MCP key. */
  key: string;
  ref: ChannelRef;
  /** Folder holding its durable memory (a private thread's own folder). */
  dir: string;
  /** Folders recall reads for it, as the bot would (a thread first, then its parent). */
  recallDirs: string[];
  guildId?: string;
  channelId?: string;
  threadId?: string;
  /** With `withNames`, from the server's names.json; absent before the bot recorded them. */
  serverName?: string;
  channelName?: string;
  threadName?: string;
}

export interface ListOptions {
  /** Private threads too (`--include-private`; the audit reads each on its own). Never by default. */
  includePrivate?: boolean;
  /** Only these servers' channels (a shard's own), and no console channels. Every one when absent. */
  guildIds?: ReadonlySet<string>;
  /** Channels only: no private thread even with `includePrivate` (warm-up indexes channels). */
  channelsOnly?: boolean;
  /** Each conversation's recorded names too (one names.json read per server listed). */
  withNames?: boolean;
}

/** The server (guild) folders of a data root, by id as the folder listing sorts them. */
export async function listServerIds(root: string): Promise<string[]> {
  return (await listFolders(root)).filter(isSnowflake);
}

/**
 * Every conversation of the root that a surface outside a conversation may show, in folder order
 * (servers and `local/` as the root lists them, then channels, each followed by its private
 * threads). Private threads (memory/privateThreads.ts says which folders are theirs) only when
 * asked: without `includePrivate` no thread folder is even opened.
 */
export async function listConversations(root: string, o: ListOptions = {}): Promise<Conversation[]> {
  const out: Conversation[] = [];
  for (const g of await listFolders(root)) {
    if (g === NAMES.local) {
      if (!o.guildIds) out.push(...(await consoleChannels(root)));
      continue;
    }
    if (!isSnowflake(g) || (o.guildIds && !o.guildIds.has(g))) continue;
    const names = o.withNames ? await readServerNames(root, g) : undefined;
    const named = (id: string) => names?.channels[id];
    for (const c of await listFolders(guildDir(root, g))) {
      if (!isSnowflake(c)) continue;
      const dir = channelPaths(root, { kind: 'discord', guildId: g, channelId: c }).channelDir;
      const ids = { guildId: g, channelId: c, ...(names ? { serverName: names.guild, channelName: named(c) } : {}) };
      out.push({ key: `${g}/${c}`, ref: { kind: 'discord', guildId: g, channelId: c }, dir, recallDirs: [dir], ...ids });
      if (o.channelsOnly || !shownOutsideItsThread({ privateThread: true }, o)) continue;
      for (const t of await listFolders(folderLayout(dir).threads)) {
        if (!isSnowflake(t)) continue;
        const tdir = threadDir(dir, t);
        if (!(await isPrivateThreadFolder(tdir))) continue;
        const ref: ChannelRef = { kind: 'discord', guildId: g, channelId: c, threadId: t, privateThread: true };
        out.push({ key: `${g}/${c}/${t}`, ref, dir: tdir, recallDirs: [tdir, dir], ...ids, threadId: t, ...(names ? { threadName: named(t) } : {}) });
      }
    }
  }
  return out;
}

/** The console channels (`local/<name>`), by name. */
export async function consoleChannels(root: string): Promise<Conversation[]> {
  return (await listFolders(localRoot(root))).filter(isLocalName).map((n) => {
    const dir = localDir(root, n);
    return { key: `local/${n}`, ref: { kind: 'local', name: n }, dir, recallDirs: [dir] };
  });
}

/**
 * The conversation a folder of the data root is: `<guild>/<channel>`, `<guild>/<channel>/threads/<thread>`
 * (a thread, flagged private by privateThreads.ts's rule) or `local/<name>`; null for any other
 * folder. Unlike the listing it answers for a public thread's folder too (`minutes pack create`
 * may name one).
 */
export async function conversationAt(root: string, dir: string): Promise<ChannelRef | null> {
  const rel = path.relative(path.resolve(root), path.resolve(dir));
  if (rel.startsWith('..') || path.isAbsolute(rel) || rel === '') return null;
  const parts = rel.split(path.sep);
  if (parts.length === 2 && parts[0] === path.basename(localRoot(root)) && isLocalName(parts[1])) return { kind: 'local', name: parts[1] };
  if (parts.length === 2 && parts.every(isSnowflake)) return { kind: 'discord', guildId: parts[0], channelId: parts[1] };
  if (parts.length === 4 && parts[2] === NAMES.threads && isSnowflake(parts[0]) && isSnowflake(parts[1]) && isSnowflake(parts[3])) {
    const privateThread = await isPrivateThreadFolder(path.resolve(dir));
    return { kind: 'discord', guildId: parts[0], channelId: parts[1], threadId: parts[3], ...(privateThread ? { privateThread: true } : {}) };
  }
  return null;
}

/** A server's recorded names: its own, and channel id → name (a private thread's too, when one was recorded). */
export type ServerNames = Pick<GuildNames, 'guild' | 'channels'>;

/** Names the bot recorded (`<guild>/.minutes/names.json`, checked as the bot reads it); ids only when none. */
export async function readServerNames(root: string, guildId: string): Promise<ServerNames> {
  const text = await readTextOrNull(namesFile(root, guildId));
  try {
    // Read-only: a file of the wrong shape is shown as ids, never set aside as the bot would.
    const v = GuildNames.safeParse(text ? JSON.parse(text) : null);
    return v.success ? { guild: v.data.guild, channels: v.data.channels } : { channels: {} };
  } catch {
    return { channels: {} };
  }
}
