import type { Asker } from '../../chat/commandRegistry';
import { PackCommandContext, PackRequest, runPack } from '../../chat/packCommands';
import type { ChannelRef } from '../../memory/paths';
import { PackageError } from '../../packages/errors';

/**
 * `/pack list|create|activate|deactivate|explain|refresh|delete` on Discord: the registry
 * (chat/commandList.ts) turns the options into one request for the shared command
 * (chat/packCommands.ts), in the channel or thread it was typed in. A refusal is its one line, shown
 * to the asker only (list and explain are the asker's too); who is an admin is decided by slash.ts
 * as for /memory forget.
 */
export class PackSlash {
  constructor(private readonly rt: Omit<PackCommandContext, 'actor' | 'isAdmin'>) {}

  async command(ref: ChannelRef, req: PackRequest, asker: Asker): Promise<string> {
    try {
      return await runPack({ ...this.rt, actor: asker.name, isAdmin: asker.admin }, ref, req);
    } catch (err) {
      if (err instanceof PackageError) return `Not done: ${err.message}.`;
      throw err;
    }
  }
}
