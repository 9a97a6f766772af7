import { z } from 'zod';

/**
 * The human names the bot sees, one file per server, `<root>/<guildId>/.minutes/names.json`: written
 * by the bot (bot/intake/names.ts), read for the dashboard and `minutes mcp` by the data root's read model
 * (dataRootIndex.ts). It imports nothing of Discord, so both sides can share it.
 * The zod schema and the type it accepts share the name; the object is loose, so keys this version
 * does not know survive a rewrite. `version` is optional: files written by hand or by tools may
 * lack it, and nothing depends on it.
 */
export const GuildNames = z.looseObject({
  version: z.literal(1).optional(),
  guild: z.string().optional(),
  /** Channel id → name. */
  channels: z.record(z.string(), z.string()),
});
export type GuildNames = z.infer<typeof GuildNames>;
