import { conversationAt } from '../memory/dataRootIndex';
import { NAMES, PackageServer, serverLabel } from '../memory/layout';
import { ChannelRef, isLocalName, isSnowflake, refLabel } from '../memory/paths';
import { PackageError } from './errors';

/**
 * Naming conversations and servers in packages: a manifest and its items name a conversation by
 * its label (refLabel: `111/222`, `111/222/threads/333`, `local/orders-team`), never by a path, so
 * a package file moved to another data root still says where each item came from.
 */

/** The conversation a label names (as refLabel writes it); null for anything else. */
export function refFromLabel(label: string, privateThread = false): ChannelRef | null {
  const parts = label.split('/');
  if (parts.length === 2 && parts[0] === NAMES.local && isLocalName(parts[1])) return { kind: 'local', name: parts[1] };
  if (parts.length === 2 && parts.every(isSnowflake)) return { kind: 'discord', guildId: parts[0], channelId: parts[1] };
  if (parts.length === 4 && parts[2] === NAMES.threads && isSnowflake(parts[0]) && isSnowflake(parts[1]) && isSnowflake(parts[3])) {
    return { kind: 'discord', guildId: parts[0], channelId: parts[1], threadId: parts[3], ...(privateThread ? { privateThread: true } : {}) };
  }
  return null;
}

/** `local` or a guild id, as a manifest's `server:` holds it; null for anything else. */
export function serverFromLabel(label: string): PackageServer | null {
  if (label === NAMES.local) return { kind: 'local' };
  return isSnowflake(label) ? { kind: 'discord', guildId: label } : null;
}

export function sameServer(a: PackageServer, b: PackageServer): boolean {
  return serverLabel(a) === serverLabel(b);
}

/** The label of the folder holding a conversation's durable memory (a private thread keeps its own). */
export function durableLabel(ref: ChannelRef): string {
  if (ref.kind === 'local' || !ref.threadId || ref.privateThread) return refLabel(ref);
  return refLabel({ kind: 'discord', guildId: ref.guildId, channelId: ref.channelId });
}

/**
 * The conversation a folder of the data root is (memory/dataRootIndex.ts: `<guild>/<channel>`,
 * `<guild>/<channel>/threads/<thread>`, private by memory/privateThreads.ts's rule, or `local/<name>`).
 * Anything else is refused: a package must know its server.
 */
export async function refFromDir(root: string, dir: string): Promise<ChannelRef> {
  const ref = await conversationAt(root, dir);
  if (ref) return ref;
  throw new PackageError(
    'bad-name',
    `${dir} is not a channel folder of the data root ${root} (<guild>/<channel>, <guild>/<channel>/threads/<thread> or local/<name>): pass --data-dir, or the channel's folder inside it`,
  );
}
