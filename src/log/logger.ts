import pino from 'pino';
import { redactSecrets } from '../shared/secrets';

export type Logger = pino.Logger;

/** Keys whose values never reach a log line, wherever they sit in a logged object. */
const REDACT_PATHS = [
  'token',
  '*.token',
  'apiKey',
  '*.apiKey',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'DISCORD_TOKEN',
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  '*.DISCORD_TOKEN',
  '*.ANTHROPIC_API_KEY',
  '*.OPENAI_API_KEY',
];

export interface LoggerOptions {
  level?: string;
  /** 'json' for production and log collectors, 'pretty' for a person at a terminal. */
  format?: 'json' | 'pretty';
  /** Defaults to stderr: stdout belongs to command output, which scripts parse. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const level = opts.level ?? 'info';
  const format = opts.format ?? defaultFormat();
  const base = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: undefined, serializers: { err: errorWithoutSecrets } };
  if (format === 'pretty') {
    // pino-pretty as a stream (not a worker transport) so lines are written synchronously and
    // short-lived CLI commands never exit before their last log line.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pretty = require('pino-pretty') as typeof import('pino-pretty');
    const stream = pretty({
      destination: opts.destination ?? 2,
      colorize: !opts.destination && Boolean(process.stderr.isTTY),
      sync: true,
      ignore: 'pid,hostname',
    });
    return pino(base, stream);
  }
  const dest = opts.destination ?? pino.destination({ fd: 2, sync: true });
  return pino(base, dest as pino.DestinationStream);
}

function defaultFormat(): 'json' | 'pretty' {
  const f = process.env.LOG_FORMAT;
  if (f === 'json' || f === 'pretty') return f;
  if (process.env.NODE_ENV === 'production') return 'json';
  return process.stderr.isTTY ? 'pretty' : 'json';
}

/** A logger that drops everything: for tests and library callers that pass none. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/**
 * Errors are logged one way, `{ err }`: pino's serializer (type, message, stack, code), with secret
 * patterns taken out of the message and the stack (a provider's error can quote a URL with a
 * password, a request can carry a key).
 */
function errorWithoutSecrets(e: unknown): unknown {
  if (!(e instanceof Error)) return typeof e === 'string' ? redactSecrets(e) : e;
  const s = pino.stdSerializers.err(e);
  return { ...s, message: redactSecrets(s.message), ...(s.stack ? { stack: redactSecrets(s.stack) } : {}) };
}

/**
 * Writes lines another logger already formatted (a worker thread's, with the same redaction)
 * into this logger's destination, so a process has one log stream whatever thread logged.
 */
export function lineWriter(logger: Logger): (line: string) => void {
  const stream = (logger as unknown as Record<symbol, { write(s: string): unknown } | undefined>)[pino.symbols.streamSym];
  return (line) => void stream?.write(line);
}
