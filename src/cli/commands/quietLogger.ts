import { ConfigError } from '../../config/errors';
import { logSettingsFromEnv } from '../../config/logSettings';
import { createLogger, Logger } from '../../log/logger';
import type { CliIO } from '../main';

/**
 * The one-shot commands' logger (recall, audit, condense): JSON lines, `warn` unless LOG_LEVEL says
 * otherwise, so their stdout stays the result and stderr stays quiet. A bad LOG_LEVEL is one line
 * on stderr and null.
 */
export function quietLoggerFor(io: CliIO): Logger | null {
  try {
    return createLogger({ level: logSettingsFromEnv(io.env).level ?? 'warn', format: 'json', destination: io.stderr });
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr.write(`minutes: ${err.message}\n`);
      return null;
    }
    throw err;
  }
}
