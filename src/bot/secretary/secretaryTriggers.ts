import {
  AnyThreadChannel,
  ChannelType,
  Client,
  GuildMember,
  MessageReaction,
  PartialMessageReaction,
  PartialUser,
  PermissionFlagsBits,
  SendableChannels,
  TextBasedChannel,
  User,
} from 'discord.js';
import type { CondenseResult } from '../../condense/saga/secretary';
import type { ConfigFile } from '../../config/schema';
import type { Logger } from '../../log/logger';
import { gatherFrom } from './gather';
import { placeAllowed } from '../intake/gate';
import { isAdmin } from '../commands/slash';
import type { DiscordCondenser } from './discordCondenser';

export const CONDENSE_EMOJI = '📝';
export const RESOLVE_EMOJI = '✅';

/**
 * What starts a condensation without a command: 📝 on a message (condense from there, or the whole
 * thread), ✅ from a thread's owner or an admin (condense, then archive), a thread archived or
 * locked, a forum post newly tagged resolved.
 */
export class SecretaryTriggers {
  constructor(
    private readonly o: {
      client: Client;
      logger: Logger;
      clock: () => Date;
      /** The allowlists, who may condense, and the forum tags that mean resolved. */
      discord: ConfigFile['discord'];
      condenser: DiscordCondenser;
    },
  ) {}

  private get log(): Logger {
    return this.o.logger;
  }
  private get config() {
    return this.o.discord;
  }

  async onReaction(r: MessageReaction | PartialMessageReaction, u: User | PartialUser): Promise<void> {
    const name = r.emoji.name;
    if (name !== CONDENSE_EMOJI && name !== RESOLVE_EMOJI) return;
    if (u.bot || u.id === this.o.client.user?.id) return;
    const reaction = r.partial ? await r.fetch() : r;
    const message = reaction.message.partial ? await reaction.message.fetch() : reaction.message;
    const ch = message.channel;
    if (!message.guild || ch.isDMBased()) return;
    const parentId = ch.isThread() ? (ch.parentId ?? ch.id) : ch.id;
    if (!placeAllowed(message.guild.id, parentId, ch.isThread() ? ch.id : null, this.config)) return;
    // Silent on purpose: gone, or not visible to the bot: treated as absent.
    const member = await message.guild.members.fetch(u.id).catch(() => null);
    if (!member) return;
    const { condenser } = this.o;
    if (name === RESOLVE_EMOJI) {
      if (!ch.isThread()) return;
      const owner = ch.ownerId === u.id;
      const admin = isAdmin([...member.roles.cache.keys()], member.permissions.has(PermissionFlagsBits.ManageMessages), this.config);
      if (!owner && !admin) return;
      const result = await condenser.condenseThread(ch, 'explicit');
      await this.tell(ch, result);
      await ch.setArchived(true, 'resolved with ✅').catch((err) => this.log.warn({ err }, 'could not archive the thread'));
      return;
    }
    if (!this.mayCondense(member, ch)) return;
    const result = ch.isThread()
      ? await condenser.condenseThread(ch, 'explicit')
      : await condenser.condenseMessages(ch, condenser.refOf(ch), await gatherFrom(ch, message), 'explicit');
    await this.tell(ch, result);
  }

  async onThreadUpdate(before: AnyThreadChannel, after: AnyThreadChannel): Promise<void> {
    const archivedNow = (!before.archived && after.archived) || (!before.locked && after.locked);
    const tagged = this.newlyResolvedTag(before, after);
    if (!archivedNow && !tagged) return;
    await this.o.condenser.autoCondense(after, this.o.clock());
  }

  private newlyResolvedTag(before: AnyThreadChannel, after: AnyThreadChannel): boolean {
    const forum = after.parent;
    if (!forum || forum.type !== ChannelType.GuildForum) return false;
    const names = new Set(this.config.resolvedTags.map((t) => t.toLowerCase()));
    const resolvedIds = forum.availableTags.filter((t) => names.has(t.name.toLowerCase())).map((t) => t.id);
    const had = before.appliedTags.some((t) => resolvedIds.includes(t));
    return !had && after.appliedTags.some((t) => resolvedIds.includes(t));
  }

  /** Default: anyone who can post there; the config can name roles or users instead. */
  private mayCondense(member: GuildMember, ch: TextBasedChannel): boolean {
    const d = this.config;
    if (d.condenseRoles.length || d.condenseUsers.length) {
      return d.condenseUsers.includes(member.id) || member.roles.cache.some((r) => d.condenseRoles.includes(r.id));
    }
    if (ch.isDMBased()) return false;
    const perms = ch.permissionsFor(member);
    return Boolean(perms?.has(ch.isThread() ? PermissionFlagsBits.SendMessagesInThreads : PermissionFlagsBits.SendMessages));
  }

  /** After a reaction: say only what a person needs (notices, failures); the post speaks for itself. */
  private async tell(ch: SendableChannels, r: CondenseResult): Promise<void> {
    const lines = r.status === 'done' ? r.notices : r.status === 'failed' ? [r.userMessage] : [];
    for (const text of lines)
      await ch
        .send({ content: text, allowedMentions: { parse: [] } })
        .catch((err) => this.log.warn({ err }, 'could not tell the channel about the condensation'));
  }
}
