import os from 'node:os';
import path from 'node:path';
import { ConfigError } from './errors';
import type { ConfigFile } from './schema';

/**
 * Where recall's sentence vectors come from, resolved once from the config and the environment.
 * The "api" mode defaults to the chat provider's OpenAI-compatible settings when those exist, so an
 * Ollama or OpenAI user sets one word in the config.
 */
export interface SemanticSettings {
  mode: 'off' | 'local' | 'api';
  api?: { baseURL: string; model: string; apiKey?: string };
  /** The vector cache folder. */
  cacheDir: string;
  /**
   * How long recall waits for a message's own vector before it goes by words alone; unset, recall's
   * default (measured for a reply that must not wait). Not in the config: tests on a loaded machine
   * set it so a slow embedding does not turn a test of meaning into one of words.
   */
  queryTimeoutMs?: number;
}

const OPENAI_URL = 'https://api.openai.com/v1';
/** OpenAI's cheapest current embedding model ($0.02 per million tokens). */
const OPENAI_EMBEDDING_MODEL = 'text-embedding-3-small';

export function semanticSettings(opts: {
  recall: Pick<ConfigFile['recall'], 'semantic' | 'api'>;
  mode?: 'off' | 'local' | 'api';
  env: NodeJS.ProcessEnv;
  openai: { apiKey?: string; baseURL?: string };
  /** The default cache folder when MINUTES_VECTOR_CACHE is unset. */
  defaultCacheDir: string;
  /** A relative MINUTES_VECTOR_CACHE is taken from here. */
  cwd: string;
}): SemanticSettings {
  const blank = (k: string) => (opts.env[k] ?? '').trim() || undefined;
  const mode = opts.mode ?? opts.recall.semantic;
  const cacheDir = path.resolve(opts.cwd, blank('MINUTES_VECTOR_CACHE') ?? opts.defaultCacheDir);
  if (mode !== 'api') return { mode, cacheDir };
  const baseURL = (opts.recall.api.baseUrl ?? opts.openai.baseURL ?? (opts.openai.apiKey ? OPENAI_URL : undefined))?.replace(/\/+$/, '');
  if (!baseURL) {
    throw new ConfigError(
      'recall.semantic is "api" but no embeddings server is set: put recall.api.baseUrl in the config (e.g. "http://localhost:11434/v1" for Ollama), or set OPENAI_API_KEY for OpenAI',
    );
  }
  const model = opts.recall.api.model ?? (baseURL === OPENAI_URL ? OPENAI_EMBEDDING_MODEL : undefined);
  if (!model) {
    throw new ConfigError(
      `recall.semantic is "api" with the server ${baseURL}: name its embedding model in recall.api.model (e.g. "nomic-embed-text" for Ollama)`,
    );
  }
  // The chat key goes only to the chat provider's own server; another server needs its own key.
  const sameServer = baseURL === (opts.openai.baseURL ?? OPENAI_URL).replace(/\/+$/, '');
  const apiKey = blank('MINUTES_EMBEDDINGS_KEY') ?? (sameServer ? opts.openai.apiKey : undefined);
  return { mode, api: { baseURL, model, apiKey }, cacheDir };
}

/** The recall command's cache when MINUTES_VECTOR_CACHE is unset: the user's cache folder. */
export function userVectorCacheDir(env: NodeJS.ProcessEnv): string {
  const xdg = (env.XDG_CACHE_HOME ?? '').trim();
  return path.join(xdg || path.join(os.homedir(), '.cache'), 'minutes', 'vectors');
}

/** The bot's cache: inside the data root, beside the channel folders (a name no channel can have). */
export function botVectorCacheDir(dataDir: string): string {
  return path.join(dataDir, '.cache', 'vectors');
}
