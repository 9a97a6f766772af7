import type { ChatInputCommandInteraction, GuildMember } from 'discord.js';
import { PackCommandContext, PackRequest, runPack } from '../../chat/packCommands';
import type { ChannelRef } from '../../memory/paths';
import { PackageError } from '../../packages/errors';

/**
 * `/pack list|create|activate|deactivate|explain|refresh|delete` on Discord: the options become one
 * request for the shared command (chat/packCommands.ts), in the channel or thread it was typed in.
 * A refusal is its one line, shown to the asker only (slash.ts makes refusals and list/explain
 * ephemeral); who is an admin is decided by slash.ts as for /memory forget.
 */
export class PackSlash {
  constructor(private readonly rt: Omit<PackCommandContext, 'actor' | 'isAdmin'>) {}

  async command(ix: ChatInputCommandInteraction, ref: ChannelRef, admin: boolean): Promise<string> {
    const actor = (ix.member as GuildMember | null)?.displayName ?? ix.user.globalName ?? ix.user.username;
    const req: PackRequest = {
      sub: ix.options.getSubcommand(true),
      name: ix.options.getString('name') ?? '',
      query: ix.options.getString('query') ?? undefined,
      items: (ix.options.getString('items') ?? '').split(/[\s,]+/).filter(Boolean),
      maxItems: ix.options.getInteger('max_items') ?? undefined,
      maxTokens: ix.options.getInteger('max_tokens') ?? undefined,
    };
    try {
      return await runPack({ ...this.rt, actor, isAdmin: admin }, ref, req);
    } catch (err) {
      if (err instanceof PackageError) return `Not done: ${err.message}.`;
      throw err;
    }
  }
}
