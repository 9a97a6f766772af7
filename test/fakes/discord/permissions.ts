/**
 * Discord's permission arithmetic, small enough to read in one go.
 *
 * The fake computes permissions the way Discord does so that REST answers 403 exactly where the
 * real API would, and so that discord.js's own `permissionsFor()` (computed from the roles and
 * overwrites the fake sends in GUILD_CREATE / CHANNEL_UPDATE) agrees with the REST answers.
 */
import { PermissionFlagsBits } from 'discord.js';

export type PermissionName = keyof typeof PermissionFlagsBits;

/** Either raw bits, or a list of names such as `['ViewChannel', 'SendMessages']`. */
export type PermissionInput = bigint | readonly PermissionName[];

export const ALL_PERMISSIONS: bigint = Object.values(PermissionFlagsBits).reduce((a, b) => a | b, 0n);

export function toBits(input: PermissionInput): bigint {
  if (typeof input === 'bigint') return input;
  return input.reduce((bits, name) => {
    const bit = PermissionFlagsBits[name];
    if (bit === undefined) throw new Error(`fake-discord: unknown permission name ${String(name)}`);
    return bits | bit;
  }, 0n);
}

export function permissionNames(bits: bigint): PermissionName[] {
  return (Object.keys(PermissionFlagsBits) as PermissionName[]).filter((n) => (bits & PermissionFlagsBits[n]) !== 0n);
}

/** What Discord gives @everyone in a new server (a subset is enough for tests). */
export const DEFAULT_EVERYONE_PERMISSIONS = toBits([
  'ViewChannel',
  'SendMessages',
  'SendMessagesInThreads',
  'CreatePublicThreads',
  'CreatePrivateThreads',
  'EmbedLinks',
  'AttachFiles',
  'AddReactions',
  'ReadMessageHistory',
  'MentionEveryone',
  'UseApplicationCommands',
  'UseExternalEmojis',
  'ChangeNickname',
  'CreateInstantInvite',
]);

/** What the bot's managed role gets by default: everything Minutes needs, nothing more. */
export const DEFAULT_BOT_PERMISSIONS = toBits([
  'ViewChannel',
  'SendMessages',
  'SendMessagesInThreads',
  'CreatePublicThreads',
  'CreatePrivateThreads',
  'ManageThreads',
  'ManageMessages',
  'PinMessages',
  'EmbedLinks',
  'AttachFiles',
  'AddReactions',
  'ReadMessageHistory',
  'UseApplicationCommands',
]);

export interface Overwrite {
  /** Role id (type 0) or member id (type 1). The guild id is the @everyone role. */
  id: string;
  type: 0 | 1;
  allow: bigint;
  deny: bigint;
}

export interface PermissionSubject {
  guildId: string;
  ownerId: string;
  /** Permissions of @everyone (role id === guild id). */
  everyone: bigint;
  /** The member's roles other than @everyone, with their permissions. */
  roles: ReadonlyArray<{ id: string; permissions: bigint }>;
  userId: string;
}

/** Guild-level permissions (no channel overwrites). */
export function basePermissions(s: PermissionSubject): bigint {
  if (s.userId === s.ownerId) return ALL_PERMISSIONS;
  const bits = s.roles.reduce((acc, r) => acc | r.permissions, s.everyone);
  return (bits & PermissionFlagsBits.Administrator) !== 0n ? ALL_PERMISSIONS : bits;
}

/**
 * Channel permissions: base, then @everyone overwrite, then the union of role overwrites, then the
 * member overwrite (Discord's documented order). Threads pass their parent's overwrites.
 */
export function channelPermissions(s: PermissionSubject, overwrites: Iterable<Overwrite>): bigint {
  const base = basePermissions(s);
  // Owners and administrators ignore overwrites.
  if ((base & PermissionFlagsBits.Administrator) !== 0n) return ALL_PERMISSIONS;
  const list = [...overwrites];
  let bits = base;
  const everyone = list.find((o) => o.id === s.guildId);
  if (everyone) bits = (bits & ~everyone.deny) | everyone.allow;
  const roleIds = new Set(s.roles.map((r) => r.id));
  let allow = 0n;
  let deny = 0n;
  for (const o of list) {
    if (o.type === 0 && roleIds.has(o.id)) {
      allow |= o.allow;
      deny |= o.deny;
    }
  }
  bits = (bits & ~deny) | allow;
  const member = list.find((o) => o.type === 1 && o.id === s.userId);
  if (member) bits = (bits & ~member.deny) | member.allow;
  // Without ViewChannel nothing else in the channel is usable (Discord's implicit rule).
  return (bits & PermissionFlagsBits.ViewChannel) === 0n ? 0n : bits;
}

export function has(bits: bigint, name: PermissionName): boolean {
  return (bits & PermissionFlagsBits[name]) === PermissionFlagsBits[name];
}
