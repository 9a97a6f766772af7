import { Conversation, listConversations } from '../memory/dataRootIndex';
import { McpRequestError } from './errors';

/**
 * What an MCP client may see of the data root: its read model's listing (memory/dataRootIndex.ts:
 * folders whose names pass the store's own id checks; a private thread is its own unit, never part
 * of its parent), narrowed to
 * `--channels` when given. A client names a channel by a key of this listing (or a name that picks
 * exactly one of it); nothing a client sends is ever joined into a path, so no request can reach a
 * file the listing did not find.
 */
export type ChannelKind = 'channel' | 'private thread' | 'console channel';

export interface Channel {
  /** `<guild>/<channel>`, `<guild>/<channel>/<thread>` (private thread) or `local/<name>`. */
  key: string;
  kind: ChannelKind;
  unit: Conversation;
  /** For people and agents: `Acme › #backend`, `Acme › #backend › private thread plans`, `console › sandbox`. */
  label: string;
  serverId?: string;
  serverName?: string;
  /** From the server's names.json (a console channel's folder name); absent before the bot recorded it. */
  channelName?: string;
  threadName?: string;
  /** A private thread's channel. */
  parentKey?: string;
  /** What search reads: a private thread's own folder, then its parent's only when the parent is visible too. */
  searchDirs: string[];
}

const KEY = /^(?:\d{1,20}\/\d{1,20}(?:\/\d{1,20})?|local\/[a-z0-9][a-z0-9_-]{0,63})$/;

/** `--channels KEY,KEY`: the keys, or one line saying which one is not a key. */
export function parseChannelKeys(text: string): { keys: string[] } | { problem: string } {
  const keys = text
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  if (keys.length === 0) return { problem: '--channels is empty: give channel keys separated by commas (see the list_channels tool)' };
  const bad = keys.find((k) => !KEY.test(k));
  if (bad !== undefined)
    return { problem: `--channels: "${bad}" is not a channel key: use <guild id>/<channel id>, <guild id>/<channel id>/<thread id> or local/<name>` };
  return { keys: [...new Set(keys)] };
}

export interface CatalogOptions {
  root: string;
  /** Keys this server may show; every channel when absent. */
  only?: ReadonlySet<string>;
  /** `--include-private`: the operator lets private threads be served too (never by default). */
  includePrivate?: boolean;
}

function normName(s: string): string {
  return s.trim().replace(/^#/, '').toLowerCase();
}

export class Catalog {
  constructor(private readonly o: CatalogOptions) {}

  /** Every channel the client may see, in the listing's order (by server, channel, thread). */
  async list(): Promise<Channel[]> {
    const units = (await listConversations(this.o.root, { includePrivate: this.o.includePrivate, withNames: true })).filter(
      (u) => !this.o.only || this.o.only.has(u.key),
    );
    const visible = new Set(units.map((u) => u.key));
    return units.map((u) => describe(u, visible));
  }

  /** `--channels` keys that name no channel of the data root (a typo, or a channel not made yet). */
  async missing(): Promise<string[]> {
    if (!this.o.only) return [];
    const found = new Set((await listConversations(this.o.root, { includePrivate: true })).map((u) => u.key));
    return [...this.o.only].filter((k) => !found.has(k));
  }

  /** Private threads of the data root this server leaves out (every one, without `--include-private`). */
  async privateLeftOut(): Promise<string[]> {
    if (this.o.includePrivate) return [];
    const all = await listConversations(this.o.root, { includePrivate: true });
    return all.filter((u) => u.threadId && (!this.o.only || this.o.only.has(u.key))).map((u) => u.key);
  }

  /** The channel with this exact key, when the client may see it. */
  async byKey(key: string): Promise<Channel | undefined> {
    return (await this.list()).find((c) => c.key === key);
  }

  /** The channel a tool argument names: its key, or a name (`#backend`, `backend`) only one channel has. */
  async find(arg: string): Promise<Channel> {
    const all = await this.list();
    const exact = all.find((c) => c.key === arg.trim());
    if (exact) return exact;
    const want = normName(arg);
    // A private thread goes by its own name, never by its parent's.
    const nameOf = (c: Channel) => (c.kind === 'private thread' ? c.threadName : c.channelName);
    const named = want ? all.filter((c) => nameOf(c) !== undefined && normName(nameOf(c)!) === want) : [];
    if (named.length === 1) return named[0]!;
    if (named.length > 1)
      throw new McpRequestError(`"${arg}" names ${named.length} channels: use one of their keys: ${named.map((c) => `${c.key} (${c.label})`).join(', ')}`);
    throw new McpRequestError(`no channel "${arg}"${this.o.only ? ' among those this server shows' : ''}: call list_channels for the keys you can use`);
  }
}

function describe(u: Conversation, visible: Set<string>): Channel {
  if (u.ref.kind === 'local') {
    return { key: u.key, kind: 'console channel', unit: u, label: `console › ${u.ref.name}`, channelName: u.ref.name, searchDirs: u.recallDirs };
  }
  const { serverName, channelName } = u;
  const base = `${serverName ?? u.guildId} › ${channelName ? `#${channelName}` : u.channelId}`;
  const common = { unit: u, serverId: u.guildId, serverName, channelName };
  if (!u.threadId) return { key: u.key, kind: 'channel', label: base, searchDirs: u.recallDirs, ...common };
  const parentKey = `${u.guildId}/${u.channelId}`;
  const threadName = u.threadName;
  return {
    key: u.key,
    kind: 'private thread',
    label: `${base} › private thread ${threadName ?? u.threadId}`,
    threadName,
    parentKey,
    // The bot's recall in the thread reads the parent too; a client shown only the thread does not.
    searchDirs: visible.has(parentKey) ? u.recallDirs : [u.dir],
    ...common,
  };
}
