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

/** `local/packages/` holds the console channels' context packages: no console channel may take its name. */
const RESERVED_LOCAL_NAMES = new Set(['packages']);

export function isLocalName(name: string): boolean {
  return LOCAL_NAME.test(name) && !RESERVED_LOCAL_NAMES.has(name);
}

/** A context package's name: the same shape as a console channel's, so it is a safe file name. */
export function isPackageName(name: string): boolean {
  return LOCAL_NAME.test(name);
}

export function assertPackageName(name: string): void {
  if (!isPackageName(name)) {
    throw new InvalidChannelError(`invalid package name "${name}": use 1-64 lowercase letters, digits, "-" or "_", starting with a letter or digit`);
  }
}

export function assertValidRef(ref: ChannelRef): void {
  if (ref.kind === 'local') {
    if (RESERVED_LOCAL_NAMES.has(ref.name)) {
      throw new InvalidChannelError(
        `the channel name "${ref.name}" is reserved (local/${ref.name}/ holds the console channels' context packages): pick another name`,
      );
    }
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

/** A name for logs and frontmatter: never a path. */
export function refLabel(ref: ChannelRef): string {
  if (ref.kind === 'local') return `local/${ref.name}`;
  return ref.threadId ? `${ref.guildId}/${ref.channelId}/threads/${ref.threadId}` : `${ref.guildId}/${ref.channelId}`;
}
