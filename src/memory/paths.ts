import path from 'node:path';

/**
 * Where a conversation lives. Folder names come only from Discord snowflakes or from a validated
 * console-mode name, so no path is ever built from a name a user controls.
 */
export type ChannelRef =
  | { kind: 'discord'; guildId: string; channelId: string; threadId?: string; privateThread?: boolean }
  | { kind: 'local'; name: string; threadId?: undefined; privateThread?: undefined };

const SNOWFLAKE = /^[0-9]{1,20}$/;
const LOCAL_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export class InvalidChannelError extends Error {
  override name = 'InvalidChannelError';
}

export function isSnowflake(id: string): boolean {
  return SNOWFLAKE.test(id);
}

export function isLocalName(name: string): boolean {
  return LOCAL_NAME.test(name);
}

export function assertValidRef(ref: ChannelRef): void {
  if (ref.kind === 'local') {
    if (!isLocalName(ref.name)) {
      throw new InvalidChannelError(`invalid channel name "${ref.name}": use 1-64 lowercase letters, digits, "-" or "_", starting with a letter or digit`);
    }
    return;
  }
  for (const [label, id] of [
    ['guild', ref.guildId],
    ['channel', ref.channelId],
    ['thread', ref.threadId],
  ] as const) {
    if (id === undefined && label === 'thread') continue;
    if (typeof id !== 'string' || !isSnowflake(id)) {
      throw new InvalidChannelError(`invalid ${label} id "${String(id)}": Discord ids are numeric snowflakes`);
    }
  }
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
  /** Serialization key: every writer of this channel, threads included, shares it. */
  queueKey: string;
}

export function channelPaths(root: string, ref: ChannelRef): ChannelPaths {
  assertValidRef(ref);
  const channelDir = ref.kind === 'local' ? path.join(root, 'local', ref.name) : path.join(root, ref.guildId, ref.channelId);
  return channelLayout(channelDir, ref);
}

/** The layout inside one channel folder: where each file of the conversation `ref` lives. */
export function channelLayout(channelDir: string, ref: ChannelRef): ChannelPaths {
  const convDir = ref.threadId ? path.join(channelDir, 'threads', ref.threadId) : channelDir;
  // A private thread's durable memory stays inside the thread: nothing said there may reach the
  // parent channel's files (and through them, its prompts).
  const durableDir = ref.privateThread ? convDir : channelDir;
  return {
    channelDir,
    convDir,
    stateDir: path.join(convDir, '.minutes'),
    channelStateDir: path.join(channelDir, '.minutes'),
    context: path.join(channelDir, 'CONTEXT.md'),
    contextArchive: path.join(channelDir, 'CONTEXT.archive.md'),
    memory: path.join(durableDir, 'MEMORY.md'),
    history: path.join(durableDir, 'HISTORY.md'),
    historyArchive: path.join(durableDir, 'HISTORY.archive.md'),
    session: path.join(convDir, 'SESSION.md'),
    log: path.join(convDir, 'log.jsonl'),
    condensations: path.join(durableDir, 'condensations'),
    queueKey: channelDir,
  };
}

export function workspaceDir(root: string): string {
  return path.join(root, 'workspace');
}

/** The folders recall reads for a conversation: a thread's own first, then its channel's. */
export function recallDirs(p: ChannelPaths, root: string): { channelDirs: string[]; workspaceDir: string } {
  return { channelDirs: p.convDir === p.channelDir ? [p.channelDir] : [p.convDir, p.channelDir], workspaceDir: workspaceDir(root) };
}

/** A name for logs and frontmatter: never a path. */
export function refLabel(ref: ChannelRef): string {
  if (ref.kind === 'local') return `local/${ref.name}`;
  return ref.threadId ? `${ref.guildId}/${ref.channelId}/threads/${ref.threadId}` : `${ref.guildId}/${ref.channelId}`;
}
