import type { SemanticSettings } from '../config/semantic';
import type { Embedder, OnMeaningUnavailable } from '../embed/types';
import { VectorCache } from '../embed/vectorCache';
import { packagedModelWords } from '../embed/vocabulary';
import { WorkerEmbedder } from '../embed/workerEmbedder';
import type { Logger } from '../log/logger';
import { createRecall, LexicalRecall } from './lexical';
import type { Index, RecallInput, RecallItem, RecallResult } from './types';
import { searchIndex } from './search';
import { CandidateVectors } from './vectors';
import { hasCjk } from './tokenize';

/**
 * Recall as the bot and the CLI use it: the lexical engine, plus meaning when a sentence model is
 * configured. The message's own vector is the only thing a reply waits for, and only up to
 * `queryTimeoutMs`; every failure (model not loaded, worker crashed, API down, a Chinese message the
 * model cannot read) means recall by words alone, never no answer.
 */

export interface RecallService {
  /** Where vectors come from: 'off' (words only), 'local' (the packaged model) or 'api'; shown by the dashboard. */
  readonly semantic: 'off' | 'local' | 'api';
  recall(input: RecallInput): Promise<RecallResult>;
  /**
   * A person's explicit search: ranked matches for anything that shares a word or a meaning with
   * memory, never abstaining when something matches (search.ts).
   */
  search(input: SearchRequest): Promise<RecallItem[]>;
  /**
   * Embeds every candidate of these folders that has no vector yet (the CLI waits for it);
   * `onQueued` hears how many lines that is before the work starts.
   */
  indexAll(input: Pick<RecallInput, 'channelDirs' | 'workspaceDir'>, onQueued?: (lines: number) => void): Promise<void>;
  /** Queues those candidates for embedding in the background and returns at once (after a write). */
  warm(input: Pick<RecallInput, 'channelDirs' | 'workspaceDir'>): void;
  /**
   * What the first message or search would otherwise wait for, done at start (the bot, the console,
   * the MCP server, the dashboard): the rare-word list read now, the sentence model loaded in the
   * background.
   */
  prepare(): void;
  /**
   * Builds a conversation's index by words now, if it is not built, and with meaning on looks its
   * lines' vectors up (the bot does at start for its most recent conversations, so their first
   * message after a restart neither parses their files nor hashes their lines).
   */
  prebuild(input: Pick<RecallInput, 'channelDirs' | 'workspaceDir'>): void;
  /** Resolves when background indexing and cache writes are done. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface SearchRequest extends Pick<RecallInput, 'channelDirs' | 'workspaceDir' | 'query'> {
  limit?: number;
}

export interface RecallServiceOptions {
  lexical: LexicalRecall;
  /** Defaults to 'local' with an embedder, 'off' without. */
  semantic?: 'off' | 'local' | 'api';
  embedder?: Embedder;
  vectors?: CandidateVectors;
  logger: Logger;
  /** The longest a reply waits for its message's vector. */
  queryTimeoutMs?: number;
}

/**
 * A warm query embeds in ~12 ms; the worker may be mid-batch or busy with other channels' queries.
 * Past this (or when the queue ahead says it would be), the reply goes ahead with words alone: under
 * a burst across many channels, recall is by words rather than every reply slower.
 */
const DEFAULT_QUERY_TIMEOUT_MS = 150;
/** After a write, indexing waits this long so the burst of writes of one step is indexed once. */
const WARM_DELAY_MS = 1_000;

export function createRecallService(o: RecallServiceOptions): RecallService {
  const { embedder, vectors } = o;
  const timeoutMs = o.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const warming = new Map<string, NodeJS.Timeout>();

  async function queryVector(query: string, waitMs = timeoutMs): Promise<Float32Array | undefined> {
    if (!embedder || !vectors || !query.trim() || hasCjk(query)) return undefined;
    const ac = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => {
          ac.abort();
          resolve(undefined);
        }, waitMs);
      });
      const text = query.length > 2_000 ? query.slice(0, 2_000) : query;
      const asked = embedder.embed([text], { priority: 'query', signal: ac.signal, maxWaitMs: waitMs });
      const got = await Promise.race([asked.then((v) => v[0]), timeout]);
      return got;
    } catch (err) {
      o.logger.debug({ err }, 'no vector for the message; recalling by words');
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The conversation's index, looked up once per turn; undefined when the folders cannot be read. */
  function indexOf(input: Pick<RecallInput, 'channelDirs' | 'workspaceDir'>): Index | undefined {
    try {
      return o.lexical.indexOf(input);
    } catch {
      return undefined; // recall itself reports an unreadable folder
    }
  }

  return {
    semantic: o.semantic ?? (embedder ? 'local' : 'off'),
    async recall(input) {
      const index = indexOf(input);
      if (!index) return o.lexical.recall(input);
      // An empty channel has nothing to compare with: no model is loaded for it.
      const any = index.n > 0;
      const qv = any ? await queryVector(input.query, input.queryWaitMs) : undefined;
      if (!qv || !vectors) {
        // The lines are still queued for the background (the model may be loading right now).
        if (any && vectors) vectors.queue(index);
        const byWords = o.lexical.recallIn(index, input);
        // With meaning configured, an explanation says it was missing, not off.
        if (byWords.explain && vectors && any) byWords.explain.semantic = 'unavailable';
        return byWords;
      }
      return o.lexical.recallIn(index, input, (ix) => vectors.dense(ix, qv));
    },
    async search(input) {
      let index;
      try {
        index = o.lexical.indexOf(input);
      } catch (err) {
        o.logger.warn({ err }, 'search: cannot read the memory folders');
        return [];
      }
      if (index.n === 0) return [];
      const qv = await queryVector(input.query);
      const calibration = vectors?.calibration();
      return searchIndex(
        index,
        { query: input.query, limit: input.limit },
        qv && vectors && calibration ? { cos: vectors.cosines(index, qv), calibration } : undefined,
      );
    },
    async indexAll(input, onQueued) {
      if (!vectors) return;
      const queued = vectors.queue(o.lexical.indexOf(input));
      if (queued > 0) onQueued?.(queued);
      await vectors.idle();
    },
    warm(input) {
      if (!vectors) return;
      // Debounced per conversation: a condensation writes several files in a row, and each index
      // build costs the event loop a few milliseconds.
      const key = input.channelDirs.join('\u0000');
      if (warming.has(key)) return;
      const timer = setTimeout(() => {
        warming.delete(key);
        try {
          void vectors.indexAll(o.lexical.indexOf(input)).catch((err) => o.logger.debug({ err }, 'could not queue memory lines for embedding'));
        } catch (err) {
          o.logger.debug({ err }, 'could not queue memory lines for embedding');
        }
      }, WARM_DELAY_MS);
      timer.unref();
      warming.set(key, timer);
    },
    prebuild(input) {
      // Silent on purpose: the first message there reads the files again and reports what is wrong.
      const index = indexOf(input);
      // With meaning on, the lines' vectors too: each line hashed and found in the cache now (a
      // missing one queued for the background), not by the channel's first message. Under a burst
      // after a start that was ~1 ms of the turn thread per channel (50 lines).
      if (index && index.n > 0) vectors?.queue(index);
    },
    prepare() {
      // The rare-word rule's list (rareWords.ts: ~45 ms to read and build): otherwise read by the
      // first recall after a start, where a burst's every first turn waited behind it.
      packagedModelWords();
      vectors?.loadCache();
      // A failure here is logged by the embedder once; recall then goes by words.
      embedder?.embed(['warm-up'], { priority: 'document' }).catch(() => undefined);
    },
    async idle() {
      await vectors?.idle();
    },
    async close() {
      for (const t of warming.values()) clearTimeout(t);
      warming.clear();
      // What was embedded reaches the cache file; what was only queued is embedded next time.
      await vectors?.stop();
      await embedder?.close();
    },
  };
}

export interface BuildRecallOptions {
  semantic: SemanticSettings;
  logger: Logger;
  queryTimeoutMs?: number;
  /** Hears, once per outage, that meaning is unavailable (default: a warning in the log). */
  onMeaningUnavailable?: OnMeaningUnavailable;
  /** Another sentence model for "local": a module exporting `load()` (see embed/worker.ts), and its id. */
  localModel?: { module: string; id: string };
}

/** The recall service for these settings: the packaged model, an embeddings API, or words only. */
export function buildRecallService(o: BuildRecallOptions): RecallService {
  const logger = o.logger;
  const lexical = createRecall({ logger });
  const { mode } = o.semantic;
  if (mode === 'off') return createRecallService({ lexical, logger });
  const onUnavailable = o.onMeaningUnavailable;
  const embedder: Embedder =
    mode === 'api' && o.semantic.api
      ? apiEmbedder(o.semantic.api, logger, onUnavailable)
      : new WorkerEmbedder({ logger, onUnavailable, modelModule: o.localModel?.module, id: o.localModel?.id });
  const cache = new VectorCache({ dir: o.semantic.cacheDir || undefined, modelId: embedder.id, logger });
  const vectors = new CandidateVectors({ embedder, cache, logger });
  return createRecallService({ lexical, semantic: mode, embedder, vectors, logger, queryTimeoutMs: o.queryTimeoutMs });
}

/** Loaded only in api mode: the OpenAI SDK is not needed (nor loaded) by words-only or local recall. */
function apiEmbedder(api: NonNullable<SemanticSettings['api']>, logger: Logger, onUnavailable?: OnMeaningUnavailable): Embedder {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ApiEmbedder } = require('../embed/apiEmbedder') as typeof import('../embed/apiEmbedder');
  return new ApiEmbedder({ logger, baseURL: api.baseURL, model: api.model, apiKey: api.apiKey, onUnavailable });
}
