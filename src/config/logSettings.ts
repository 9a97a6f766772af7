import { ConfigError } from './errors';

/* Kept apart from load.ts (and zod): `minutes recall` reads LOG_LEVEL and must start fast. */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export interface LogSettings {
  level?: LogLevel;
  format?: 'json' | 'pretty';
}

/**
 * LOG_LEVEL and LOG_FORMAT, checked. The environment wins over the config file: it is what a person
 * sets for one run ("LOG_LEVEL=debug npm start") without editing the installed config.
 */
export function logSettingsFromEnv(env: NodeJS.ProcessEnv): LogSettings {
  const level = (env.LOG_LEVEL ?? '').trim().toLowerCase() || undefined;
  const format = (env.LOG_FORMAT ?? '').trim().toLowerCase() || undefined;
  if (level !== undefined && !(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ConfigError(`LOG_LEVEL is "${level}": use one of ${LOG_LEVELS.join(', ')} (in .env or the environment)`);
  }
  if (format !== undefined && format !== 'json' && format !== 'pretty') {
    throw new ConfigError(`LOG_FORMAT is "${format}": use json or pretty (in .env or the environment)`);
  }
  return { level: level as LogLevel | undefined, format: format as LogSettings['format'] };
}
