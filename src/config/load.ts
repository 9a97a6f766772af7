import fs from 'node:fs';
import path from 'node:path';
import dotenv from 'dotenv';
import { z } from 'zod';
import { ConfigError } from './errors';
import { LogSettings, logSettingsFromEnv } from './logSettings';
import { ConfigFile, ConfigFileSchema } from './schema';
import { botVectorCacheDir, SemanticSettings, semanticSettings } from './semantic';

/** The name looked for in the working directory when MINUTES_CONFIG is unset. */
export const DEFAULT_CONFIG_FILE = 'minutes.config.json';

/** What a command uses; each command checks only that. */
export type Need = 'discord' | 'provider';

export interface Settings {
  dataDir: string;
  configFile: string | null;
  config: ConfigFile;
  discord: { token: string; apiUrl: string } | null;
  anthropic: { apiKey?: string; baseURL?: string };
  openai: { apiKey?: string; baseURL?: string };
  redisUrl?: string;
  /** LOG_LEVEL / LOG_FORMAT from the environment, else the config file's `log`, else unset. */
  log: LogSettings;
  /** Recall by meaning: the model and the vector cache. */
  semantic: SemanticSettings;
}

/**
 * Loads `.env` from `cwd` if present. Variables already set win; a missing file is fine (unlike
 * `node --env-file` on Node 20, which fails on it).
 */
export function loadDotEnv(cwd: string, env: NodeJS.ProcessEnv, projectRoot?: string): void {
  // The working directory's first (it wins), then the project root's, as the README promises:
  // `npx minutes …` run from a subfolder still finds the keys.
  const dirs = [cwd, ...(projectRoot && path.resolve(projectRoot) !== path.resolve(cwd) ? [projectRoot] : [])];
  for (const dir of dirs) {
    const file = path.join(dir, '.env');
    if (!fs.existsSync(file)) continue;
    const parsed = dotenv.parse(fs.readFileSync(file));
    for (const [k, v] of Object.entries(parsed)) {
      if (env[k] === undefined) env[k] = v;
    }
  }
}

/** The folder holding this package's package.json (src/config or dist/config, two levels down). */
export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

/** http(s) for APIs, redis(s) for REDIS_URL: `localhost:11434` parses as a URL but is a mistake. */
const urlValue = (key: string) => z.url({ protocol: key === 'REDIS_URL' ? /^rediss?$/ : /^https?$/ });

export function loadSettings(opts: { env: NodeJS.ProcessEnv; cwd: string; needs: Need[] }): Settings {
  const { env, cwd, needs } = opts;
  const configFile = resolveConfigFile(env, cwd);
  const config = configFile ? readConfigFile(configFile) : ConfigFileSchema.parse({});
  const blank = (k: string) => (env[k] ?? '').trim() || undefined;
  const envLog = logSettingsFromEnv(env);

  const urls: Record<string, string | undefined> = {
    DISCORD_API_URL: blank('DISCORD_API_URL'),
    ANTHROPIC_BASE_URL: blank('ANTHROPIC_BASE_URL'),
    OPENAI_BASE_URL: blank('OPENAI_BASE_URL'),
    REDIS_URL: blank('REDIS_URL'),
  };
  for (const [key, value] of Object.entries(urls)) {
    if (value === undefined) continue;
    const r = urlValue(key).safeParse(value);
    // The value may carry a password (redis://user:pass@host): never echo credentials.
    if (!r.success) throw new ConfigError(`${key} is not a valid URL ("${value.replace(/\/\/[^/@\s]*@/, '//***@')}"); fix it in .env or the environment`);
  }

  const settings: Settings = {
    dataDir: path.resolve(cwd, blank('MINUTES_DATA_DIR') ?? 'channels'),
    configFile,
    config,
    discord: null,
    // The SDK appends /v1/messages: a base copied with /v1 (as OpenAI's is written) would 404.
    anthropic: { apiKey: blank('ANTHROPIC_API_KEY'), baseURL: urls.ANTHROPIC_BASE_URL?.replace(/\/v1\/?$/, '').replace(/\/$/, '') },
    openai: { apiKey: blank('OPENAI_API_KEY'), baseURL: urls.OPENAI_BASE_URL },
    redisUrl: urls.REDIS_URL,
    log: { level: envLog.level ?? config.log.level, format: envLog.format ?? config.log.format },
    semantic: { mode: 'off', cacheDir: '' },
  };
  settings.semantic = semanticSettings({
    recall: config.recall,
    env,
    cwd,
    openai: settings.openai,
    defaultCacheDir: botVectorCacheDir(settings.dataDir),
  });

  if (needs.includes('discord')) {
    const token = blank('DISCORD_TOKEN');
    if (!token) {
      throw new ConfigError('DISCORD_TOKEN is not set: put DISCORD_TOKEN=<your bot token> in .env (Discord Developer Portal → your app → Bot → Reset Token)');
    }
    if (/\s/.test(token)) {
      throw new ConfigError('DISCORD_TOKEN does not look like a bot token: copy it again from the Developer Portal (Bot → Reset Token) into .env');
    }
    settings.discord = { token, apiUrl: (urls.DISCORD_API_URL ?? 'https://discord.com/api').replace(/\/+$/, '') };
  }
  if (needs.includes('provider')) {
    const hasAnthropic = Boolean(settings.anthropic.apiKey);
    const hasOpenai = Boolean(settings.openai.apiKey || settings.openai.baseURL);
    if (config.provider === 'anthropic' && !hasAnthropic) {
      throw new ConfigError('the config names provider "anthropic" but ANTHROPIC_API_KEY is not set: add it to .env');
    }
    if (config.provider === 'openai' && !hasOpenai) {
      throw new ConfigError('the config names provider "openai" but neither OPENAI_API_KEY nor OPENAI_BASE_URL is set: add one to .env');
    }
    if (!hasAnthropic && !hasOpenai) {
      throw new ConfigError(
        'no model provider: set ANTHROPIC_API_KEY, or OPENAI_API_KEY (and/or OPENAI_BASE_URL for Ollama, LM Studio or another OpenAI-compatible server) in .env',
      );
    }
  }
  return settings;
}

function resolveConfigFile(env: NodeJS.ProcessEnv, cwd: string): string | null {
  const named = (env.MINUTES_CONFIG ?? '').trim();
  if (named) {
    const file = path.resolve(cwd, named);
    if (!fs.existsSync(file)) {
      throw new ConfigError(`MINUTES_CONFIG names ${named}, which does not exist: fix the path or unset MINUTES_CONFIG to use defaults`);
    }
    return file;
  }
  const fallback = path.join(cwd, DEFAULT_CONFIG_FILE);
  return fs.existsSync(fallback) ? fallback : null;
}

export function readConfigFile(file: string): ConfigFile {
  let raw: unknown;
  try {
    // Some editors save a byte-order mark; it is not part of the JSON.
    raw = JSON.parse(fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));
  } catch (err) {
    // The parser quotes the text it choked on; invisible characters in it would make the line unreadable.
    const why = (err as Error).message.replace(/[\u0000-\u001f\u007f\u200b-\u200f\u2028\u2029\uFEFF]/g, '');
    throw new ConfigError(`config file ${file} is not valid JSON (${why}); fix it or see minutes.config.example.json`);
  }
  const r = ConfigFileSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue.path.length ? issue.path.join('.') : '(top level)';
    throw new ConfigError(`config file ${path.basename(file)}: ${where}: ${issue.message}; see minutes.config.example.json`);
  }
  return r.data;
}

/** The keys and base URLs the model layer reads, from validated settings (never process.env). */
export function providerEnv(s: Settings): Record<string, string | undefined> {
  return {
    ANTHROPIC_API_KEY: s.anthropic.apiKey,
    ANTHROPIC_BASE_URL: s.anthropic.baseURL,
    OPENAI_API_KEY: s.openai.apiKey,
    OPENAI_BASE_URL: s.openai.baseURL,
    REDIS_URL: s.redisUrl,
  };
}

/**
 * Whether `dir` could be written, creating nothing (for `minutes doctor`): an existing folder is
 * checked with access(2) (which also reports a read-only file system); a missing one by its nearest
 * existing parent, where start would create it.
 */
export function probeWritableReadOnly(dir: string): { problem: string | null; missing: boolean } {
  let at = path.resolve(dir);
  let missing = false;
  for (;;) {
    try {
      const st = fs.statSync(at);
      if (!st.isDirectory()) return { problem: `${at} is not a folder`, missing };
      fs.accessSync(at, fs.constants.W_OK | fs.constants.X_OK);
      return { problem: null, missing };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') return { problem: code ?? 'error', missing };
      missing = true;
      const up = path.dirname(at);
      if (up === at) return { problem: 'ENOENT', missing };
      at = up;
    }
  }
}

/** Whether this process can create and write files under `dir`; the error code when it cannot. */
export function probeWritable(dir: string): string | null {
  try {
    fs.mkdirSync(dir, { recursive: true });
    const probe = path.join(dir, `.write-test-${process.pid}`);
    fs.writeFileSync(probe, '');
    fs.rmSync(probe);
    return null;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'error';
  }
}
