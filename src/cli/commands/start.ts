import type { CliIO } from '../../shared/cliIO';
import { loggerFor, settingsFor } from './common';

export async function runStart(opts: { shards?: number | 'auto' }, io: CliIO): Promise<number> {
  const settings = settingsFor(io, ['discord', 'provider']);
  if (!settings) return 2;
  const logger = loggerFor(settings, io);
  if (opts.shards !== undefined) {
    const { runShards } = await import('../../bot/shards');
    return runShards({ settings, logger, count: opts.shards });
  }
  const { startBot } = await import('../../bot/start');
  return startBot({ settings, logger, io });
}
