import path from 'node:path';
import { assertPackageName, assertValidRef, ChannelRef, InvalidChannelError, isSnowflake } from './paths';

/**
 * The one place that knows how the data root is laid out: every file and folder Minutes reads or
 * writes is named here, and every other module asks for a path instead of joining names itself.
 * `DATA_ROOT_TREE` describes the same layout for people: README's "Where memory lives" block is
 * checked against it (test/memory/layout.test.ts), and so is every path the builders below return.
 */
export const NAMES = {
  /** Per server, inside its `.minutes/`. */
  firstSeen: 'first-seen.json',
  names: 'names.json',
  /** Per server (and `local/`): its context packages, one `<name>.md` each. */
  packages: 'packages',
  /** A channel's (and a thread's) memory files. */
  context: 'CONTEXT.md',
  contextArchive: 'CONTEXT.archive.md',
  memory: 'MEMORY.md',
  session: 'SESSION.md',
  history: 'HISTORY.md',
  historyArchive: 'HISTORY.archive.md',
  log: 'log.jsonl',
  condensations: 'condensations',
  playbooks: 'playbooks',
  threads: 'threads',
  state: '.minutes',
  /** Inside a `.minutes/` folder. */
  conversation: 'conversation.json',
  conversationJournal: 'conversation.journal.jsonl',
  usage: 'usage.json',
  upkeep: 'upkeep.json',
  pendingSummary: 'pending-summary.json',
  ledger: 'ledger.json',
  contextData: 'context.json',
  noticed: 'noticed.json',
  drift: 'drift.json',
  condenseQueue: 'condense-queue.jsonl',
  tombstones: 'tombstones.jsonl',
  activePackages: 'packages.json',
  lock: 'lock',
  backups: 'backups',
  /** Top level of the data root. */
  local: 'local',
  workspace: 'workspace',
  soul: 'SOUL.md',
  agents: 'AGENTS.md',
  cache: '.cache',
  vectors: 'vectors',
  /** Inside the data root's own `.minutes/`. */
  shards: 'shards.json',
  packageKey: 'package-key',
} as const;

/** A queue file being worked through is renamed with this suffix (see memory/jsonlQueue.ts). */
export const TAKING_SUFFIX = '.taking';

export interface LayoutNode {
  /** A name from NAMES, a placeholder (`<guildId>`), or a pattern for many files. Folders end in `/`. */
  name: string;
  about: string;
  children?: LayoutNode[];
}

const N = NAMES;
const dir = (name: string, about: string, children?: LayoutNode[]): LayoutNode => ({ name: `${name}/`, about, children });
const file = (name: string, about: string): LayoutNode => ({ name, about });

/** A conversation's own `.minutes/` files (a thread's too). */
const conversationState = [
  file(N.conversation, 'the stored conversation (turns since the last compaction, and its summary)'),
  file(N.conversationJournal, 'turns stored since conversation.json was last written, one line each (folded into it at shutdown)'),
  file(N.usage, 'token usage per model, for /status'),
  file(N.upkeep, "memory upkeep's cursors and schedule"),
  file(N.pendingSummary, 'turns a failed compaction summary still has to take in'),
  file(N.activePackages, 'the context packages active in this conversation (their items go into its prompt)'),
];

const PACKAGE_FILE = '<name>.md';

export const DATA_ROOT_TREE: LayoutNode = dir('channels', 'the data root (MINUTES_DATA_DIR)', [
  dir('<guildId>', 'one folder per Discord server (folder names are snowflakes only)', [
    dir(N.state, "the server's runtime state", [
      file(N.firstSeen, 'when the bot first saw the server (automatic condensations count from it)'),
      file(N.names, 'server and channel names the bot has seen (for `minutes dashboard`; no thread names)'),
    ]),
    dir(N.packages, "the server's context packages (`/pack`, `minutes pack`)", [
      file(PACKAGE_FILE, 'one package: its manifest as frontmatter, then its items, each with its provenance'),
    ]),
    dir('<channelId>', 'one folder per Discord channel', [
      file(N.context, "the channel's living ground truth, rendered from .minutes/context.json"),
      file(N.contextArchive, "CONTEXT.md's older entries (decisions, constraints, action items, questions, playbooks), once a list outgrows it"),
      file(N.memory, 'durable facts and decisions, one per line with id and provenance'),
      file(N.session, 'working state'),
      file(N.history, 'chronological narrative'),
      file(N.historyArchive, "HISTORY.md's older part, once it is folded"),
      file(N.log, 'cold log of messages (secrets redacted)'),
      dir(N.condensations, 'one file per condensation', [file('YYYY-MM-DD-<slug>.md', 'the condensation as posted, with its frontmatter')]),
      dir(N.playbooks, 'procedures the Secretary filed', [file('<slug>.md', 'a playbook: its steps, where they came from, earlier versions struck through')]),
      dir(N.state, 'runtime state', [
        ...conversationState,
        file(N.ledger, "the Secretary's ledger: one entry per condensed discussion"),
        file(N.contextData, 'decisions, constraints, action items, open questions and playbooks CONTEXT.md is rendered from'),
        file(N.noticed, 'decisions the bot noticed and offered to condense'),
        file(N.drift, 'decisions a drift note cited today, per conversation (each at most once a day)'),
        file(N.condenseQueue, 'resolved threads the audit queued for condensing (`.taking` while the bot works through it)'),
        file(N.tombstones, 'hashes of forgotten entries, so they are not learned again'),
        dir(N.lock, 'held while a process writes the channel'),
        dir(N.backups, 'the last five versions of each rewritten file'),
      ]),
      dir(N.threads, 'threads of this channel', [
        dir('<threadId>', "a thread's own files (a private thread also keeps its durable memory here: nothing of it reaches the channel's files)", [
          file(N.session, "the thread's working state"),
          file(N.log, "the thread's cold log"),
          file(N.memory, "a private thread's own (other threads share the channel's)"),
          file(N.history, "a private thread's own"),
          file(N.historyArchive, "a private thread's own"),
          dir(N.condensations, "a private thread's own", [file('YYYY-MM-DD-<slug>.md', 'as in a channel')]),
          dir(N.playbooks, "a private thread's own", [file('<slug>.md', 'as in a channel')]),
          dir(N.state, "the thread's runtime state", [
            ...conversationState,
            file(N.ledger, "a private thread's own"),
            file(N.contextData, "a private thread's own"),
          ]),
        ]),
      ]),
    ]),
  ]),
  dir(N.local, 'console-mode channels', [
    dir('<name>', 'a console channel, laid out like a Discord channel folder (name: 1-64 lowercase letters, digits, - and _, starting with a letter or digit)'),
    dir(N.packages, "the console channels' context packages (so no console channel is called packages)", [file(PACKAGE_FILE, 'as in a server')]),
  ]),
  dir(N.workspace, 'shared by every channel: read by the bot, never written', [
    file(N.soul, "the bot's identity, put into every prompt"),
    file(N.agents, 'house rules, put into every prompt'),
    file(N.memory, 'facts every channel may recall'),
  ]),
  dir(N.state, "the data root's own state", [
    file(N.shards, 'the shard layout this data root was last started with: total and list (see "Running on several machines")'),
    file(N.packageKey, 'the key that signs its context packages (made on first use, mode 0600; see "Context packages")'),
  ]),
  dir(N.cache, 'caches', [dir(N.vectors, "recall's sentence vectors (content-addressed; safe to delete)")]),
]);

/** Every path the tree names, relative to the data root (folders end in `/`). */
export function layoutPaths(node: LayoutNode = DATA_ROOT_TREE, prefix = ''): string[] {
  const here = prefix + node.name;
  return [here, ...(node.children ?? []).flatMap((c) => layoutPaths(c, here))];
}

export interface ChannelPaths {
  /**
   * The parent channel's folder: durable memory (CONTEXT, MEMORY, HISTORY, condensations). For a
   * private thread MEMORY, HISTORY and condensations live in the thread's folder instead, and
   * CONTEXT.md is the parent's, read-only from there.
   */
  channelDir: string;
  /** The folder holding this conversation's working state: the thread's folder for a thread. */
  convDir: string;
  /** Runtime state of this conversation (cursors, conversation, usage). */
  stateDir: string;
  /** Runtime state of the parent channel (ledger, tombstones, backups, lock). */
  channelStateDir: string;
  context: string;
  /** The older part of CONTEXT.md's lists, once they outgrow it. */
  contextArchive: string;
  memory: string;
  history: string;
  historyArchive: string;
  /** SESSION.md of this conversation (a thread has its own). */
  session: string;
  /** log.jsonl of this conversation. */
  log: string;
  condensations: string;
  /** Playbook files (`<slug>.md`), beside the condensations. */
  playbooks: string;
  /** The channel's thread folders. */
  threads: string;
  /** This conversation's state files. */
  conversation: string;
  /** Turns appended since `conversation` was written (see memory/conversationJournal.ts). */
  conversationJournal: string;
  usage: string;
  upkeep: string;
  pendingSummary: string;
  /** The context packages active in this conversation (a thread has its own). */
  activePackages: string;
  /** The Secretary's state: a private thread keeps its own, everything else the channel's. */
  ledger: string;
  contextData: string;
  /** The parent channel's state files. */
  noticed: string;
  drift: string;
  condenseQueue: string;
  tombstones: string;
  backups: string;
  /** Serialization key: every writer of this channel, threads included, shares it. */
  queueKey: string;
}

export function channelPaths(root: string, ref: ChannelRef): ChannelPaths {
  assertValidRef(ref);
  const channelDir = ref.kind === 'local' ? localDir(root, ref.name) : path.join(guildDir(root, ref.guildId), ref.channelId);
  return channelLayout(channelDir, ref);
}

/** The layout inside one channel folder: where each file of the conversation `ref` lives. */
export function channelLayout(channelDir: string, ref: Pick<ChannelRef, 'threadId' | 'privateThread'>): ChannelPaths {
  const convDir = ref.threadId ? threadDir(channelDir, ref.threadId) : channelDir;
  // A private thread's durable memory stays inside the thread: nothing said there may reach the
  // parent channel's files (and through them, its prompts).
  const durableDir = ref.privateThread ? convDir : channelDir;
  const stateDir = path.join(convDir, N.state);
  const channelStateDir = path.join(channelDir, N.state);
  const durableStateDir = ref.privateThread ? stateDir : channelStateDir;
  return {
    channelDir,
    convDir,
    stateDir,
    channelStateDir,
    context: path.join(channelDir, N.context),
    contextArchive: path.join(channelDir, N.contextArchive),
    memory: path.join(durableDir, N.memory),
    history: path.join(durableDir, N.history),
    historyArchive: path.join(durableDir, N.historyArchive),
    session: path.join(convDir, N.session),
    log: path.join(convDir, N.log),
    condensations: path.join(durableDir, N.condensations),
    playbooks: path.join(durableDir, N.playbooks),
    threads: path.join(channelDir, N.threads),
    conversation: path.join(stateDir, N.conversation),
    conversationJournal: path.join(stateDir, N.conversationJournal),
    usage: path.join(stateDir, N.usage),
    upkeep: path.join(stateDir, N.upkeep),
    pendingSummary: path.join(stateDir, N.pendingSummary),
    activePackages: path.join(stateDir, N.activePackages),
    ledger: path.join(durableStateDir, N.ledger),
    contextData: path.join(durableStateDir, N.contextData),
    noticed: path.join(channelStateDir, N.noticed),
    drift: path.join(channelStateDir, N.drift),
    condenseQueue: path.join(channelStateDir, N.condenseQueue),
    tombstones: path.join(channelStateDir, N.tombstones),
    backups: path.join(channelStateDir, N.backups),
    queueKey: channelDir,
  };
}

/** The files of a folder laid out as a channel's (a channel, a console channel, a private thread's own folder). */
export function folderLayout(dir: string): ChannelPaths {
  return channelLayout(dir, {});
}

export function guildDir(root: string, guildId: string): string {
  return path.join(root, guildId);
}

export function guildStateDir(root: string, guildId: string): string {
  return path.join(guildDir(root, guildId), N.state);
}

export function firstSeenFile(root: string, guildId: string): string {
  return path.join(guildStateDir(root, guildId), N.firstSeen);
}

export function namesFile(root: string, guildId: string): string {
  return path.join(guildStateDir(root, guildId), N.names);
}

/**
 * Whose packages: a Discord server's, or the console channels' (`local/`). A package is activated
 * only in conversations of its own server.
 */
export type PackageServer = { kind: 'discord'; guildId: string } | { kind: 'local' };

export function serverOf(ref: ChannelRef): PackageServer {
  return ref.kind === 'local' ? { kind: 'local' } : { kind: 'discord', guildId: ref.guildId };
}

/** `local` or the server's id: how a manifest and a message name a server. */
export function serverLabel(server: PackageServer): string {
  return server.kind === 'local' ? N.local : server.guildId;
}

export function packagesDir(root: string, server: PackageServer): string {
  if (server.kind === 'local') return path.join(localRoot(root), N.packages);
  if (!isSnowflake(server.guildId)) throw new InvalidChannelError(`invalid guild id "${server.guildId}": Discord ids are numeric snowflakes`);
  return path.join(guildDir(root, server.guildId), N.packages);
}

/** One package's file; the name is checked, so no path is built from what a person typed. */
export function packageFile(root: string, server: PackageServer, name: string): string {
  assertPackageName(name);
  return path.join(packagesDir(root, server), `${name}.md`);
}

export function localRoot(root: string): string {
  return path.join(root, N.local);
}

export function localDir(root: string, name: string): string {
  return path.join(localRoot(root), name);
}

export function threadDir(channelDir: string, threadId: string): string {
  return path.join(channelDir, N.threads, threadId);
}

/** Where a lock is taken, inside a `.minutes/` folder. */
export function lockFile(stateDir: string): string {
  return path.join(stateDir, N.lock);
}

export function workspaceDir(root: string): string {
  return path.join(root, N.workspace);
}

export function workspaceFiles(root: string): { soul: string; agents: string; memory: string } {
  const ws = workspaceDir(root);
  return { soul: path.join(ws, N.soul), agents: path.join(ws, N.agents), memory: path.join(ws, N.memory) };
}

/** The shard layout the data root records (memory/shardLayout.ts). */
export function shardLayoutFile(root: string): string {
  return path.join(root, N.state, N.shards);
}

/** The key that signs this data root's context packages (memory/packageKey.ts). */
export function packageKeyFile(root: string): string {
  return path.join(root, N.state, N.packageKey);
}

/** The bot's default vector cache (MINUTES_VECTOR_CACHE overrides it). */
export function vectorCacheDir(root: string): string {
  return path.join(root, N.cache, N.vectors);
}

/** The folders recall reads for a conversation: a thread's own first, then its channel's. */
export function recallDirs(p: ChannelPaths, root: string): { channelDirs: string[]; workspaceDir: string } {
  return { channelDirs: p.convDir === p.channelDir ? [p.channelDir] : [p.convDir, p.channelDir], workspaceDir: workspaceDir(root) };
}
