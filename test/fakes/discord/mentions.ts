/**
 * Who a message notifies. Discord parses `<@id>`, `<@!id>`, `<@&role>`, `@everyone` and `@here`
 * out of the content, then filters them through `allowed_mentions`. The product promises that
 * the bot pings nobody whatever the model writes, so tests need the *effective* pings, not just
 * the raw allowed_mentions the bot sent.
 */
import type { AllowedMentions, Pings } from './state';

export interface ParsedMentions {
  users: string[];
  roles: string[];
  everyone: boolean;
}

export function parseMentions(content: string): ParsedMentions {
  const users = [...content.matchAll(/<@!?(\d{5,25})>/g)].map((m) => m[1]);
  const roles = [...content.matchAll(/<@&(\d{5,25})>/g)].map((m) => m[1]);
  return { users: unique(users), roles: unique(roles), everyone: /@(everyone|here)\b/.test(content) };
}

/** Discord's 400 for contradictory allowed_mentions, or null when the object is valid. */
export function allowedMentionsError(a: AllowedMentions | undefined): string | null {
  if (!a) return null;
  if (a.parse?.includes('users') && a.users?.length) return 'parse:["users"] and users are mutually exclusive';
  if (a.parse?.includes('roles') && a.roles?.length) return 'parse:["roles"] and roles are mutually exclusive';
  if ((a.users?.length ?? 0) > 100 || (a.roles?.length ?? 0) > 100) return 'at most 100 users and 100 roles';
  return null;
}

export interface PingContext {
  /** Author of the message being replied to, if any. */
  repliedUserId: string | null;
  /** The sender holds MentionEveryone in the channel (otherwise @everyone is inert). */
  canMentionEveryone: boolean;
  /** Whether a role can be pinged by this sender (mentionable, or sender has MentionEveryone). */
  canMentionRole: (roleId: string) => boolean;
  userExists: (userId: string) => boolean;
}

/**
 * Applies allowed_mentions as Discord does. With the field absent everything parsed pings and a
 * reply pings the replied-to author; with the field present, `replied_user` defaults to false.
 */
export function effectivePings(content: string, allowed: AllowedMentions | undefined, ctx: PingContext): Pings {
  const parsed = parseMentions(content);
  const parse = new Set(allowed ? (allowed.parse ?? []) : ['users', 'roles', 'everyone']);
  const userAllowed = (id: string) => parse.has('users') || (allowed?.users ?? []).includes(id);
  const roleAllowed = (id: string) => parse.has('roles') || (allowed?.roles ?? []).includes(id);
  const repliedUser = ctx.repliedUserId && (allowed ? allowed.replied_user === true : true) ? ctx.repliedUserId : null;
  return {
    everyone: parsed.everyone && parse.has('everyone') && ctx.canMentionEveryone,
    users: parsed.users.filter((id) => ctx.userExists(id) && userAllowed(id)),
    roles: parsed.roles.filter((id) => roleAllowed(id) && ctx.canMentionRole(id)),
    repliedUser,
  };
}

/** True when the message notifies nobody at all. */
export function pingsNobody(p: Pings): boolean {
  return !p.everyone && p.users.length === 0 && p.roles.length === 0 && p.repliedUser === null;
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}
