import { loadDotEnv, loadSettings, Need, Settings } from '../../config/load';
import { createLogger, Logger } from '../../log/logger';
import type { CliIO } from '../../shared/cliIO';
import { orConfigErrorLine } from './quietLogger';

/** Loads `.env` and validates what this command needs; a problem becomes one line on stderr. */
export function settingsFor(io: CliIO, needs: Need[]): Settings | null {
  loadDotEnv(io.cwd, io.env, io.projectRoot);
  return orConfigErrorLine(io, () => loadSettings({ env: io.env, cwd: io.cwd, needs }));
}

/** The serving commands' logger (start, chat): LOG_LEVEL/LOG_FORMAT, else the config's `log`, else info. */
export function loggerFor(settings: Settings, io: CliIO): Logger {
  return createLogger({ level: settings.log.level, format: settings.log.format, destination: io.stderr });
}
