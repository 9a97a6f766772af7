import type { CliIO } from '../main';
import { loggerFor, settingsFor } from './common';

export async function runStart(io: CliIO): Promise<number> {
  const settings = settingsFor(io, ['discord', 'provider']);
  if (!settings) return 2;
  const logger = loggerFor(settings, io);
  const { startBot } = await import('../../bot/start');
  return startBot({ settings, logger, io });
}
