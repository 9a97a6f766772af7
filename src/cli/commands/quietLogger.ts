import { ConfigError } from '../../config/errors';
import { logSettingsFromEnv } from '../../config/logSettings';
import { createLogger, Logger } from '../../log/logger';
import type { CliIO } from '../../shared/cliIO';

/**
 * The one-shot commands' logger (recall, audit, condense): JSON lines, `warn` unless LOG_LEVEL says
 * otherwise, so their stdout stays the result and stderr stays quiet. A bad LOG_LEVEL is one line
 * on stderr and null.
 */
export function quietLoggerFor(io: CliIO, defaultLevel = 'warn'): Logger | null {
  return orConfigErrorLine(io, () => createLogger({ level: logSettingsFromEnv(io.env).level ?? defaultLevel, format: 'json', destination: io.stderr }));
}

/** Runs `fn`; a ConfigError becomes one line on stderr (`minutes: …`) and null. Anything else is a bug and throws. */
export function orConfigErrorLine<T>(io: CliIO, fn: () => T): T | null {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr.write(`minutes: ${err.message}\n`);
      return null;
    }
    throw err;
  }
}
