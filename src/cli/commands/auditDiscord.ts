import { findMissingCondensations, queueFile } from '../../bot/secretary/auditThreads';
import { createDiscordClient } from '../../bot/discord/client';
import type { Settings } from '../../config/load';
import type { Logger } from '../../log/logger';
import { ChannelStore } from '../../memory/store';

/** Logs in, lists resolved threads without a condensation and, with --fix, queues them for the bot. */
export async function auditDiscord(settings: Settings, fix: boolean, logger: Logger): Promise<{ lines: string[]; unqueued: number }> {
  const client = createDiscordClient({ apiUrl: settings.discord!.apiUrl });
  const ready = new Promise<void>((resolve) => client.once('clientReady', () => resolve()));
  try {
    await client.login(settings.discord!.token);
    await ready;
    const store = new ChannelStore({ root: settings.dataDir, logger });
    const missing = await findMissingCondensations(client as never, store, settings.config.discord);
    const lines: string[] = [];
    for (const m of missing) {
      const ref = { kind: 'discord' as const, guildId: m.guildId, channelId: m.channelId };
      if (fix) await store.appendJsonl(queueFile(store, ref), { threadId: m.threadId, at: new Date().toISOString() });
      lines.push(
        `${m.guildId}/${m.channelId}: thread "${m.name}" (${m.threadId}) was resolved with enough discussion but has no condensation${fix ? ' — queued; the running bot condenses it on its next sweep' : ''}`,
      );
    }
    return { lines, unqueued: fix ? 0 : missing.length };
  } finally {
    await client.destroy();
  }
}
