import { z } from 'zod';

const ID_HINT = 'must be a Discord id (digits only, as a string: "123…", in quotes)';
const snowflake = z.string({ error: ID_HINT }).regex(/^[0-9]{1,20}$/, ID_HINT);
const ids = z.array(snowflake).default([]);

/**
 * Model call limits, stated once: the config's defaults and the limiter's (when a client is built
 * without a config, as tools and tests do). 50 requests a minute and 4 at once fit the lowest paid
 * API tiers; timeouts allow a long answer; retries ride out a short outage.
 */
export const LIMIT_DEFAULTS = { requestsPerMinute: 50, concurrency: 4, timeoutMs: 120_000, maxRetries: 4 } as const;

/**
 * Catch-up after downtime: an hour covers a restart, a deploy or a short outage, when a late answer
 * is still welcome; one history page (Discord's most) per conversation keeps a start to one read each.
 */
export const CATCH_UP_DEFAULTS = { maxAgeMinutes: 60, maxMessages: 100 } as const;

/**
 * The optional config file (JSON). Every field has a default, so no file at all means: answer
 * mentions everywhere the bot can see, Anthropic or OpenAI chosen from the keys in the environment.
 */
export const ConfigFileSchema = z.strictObject({
  provider: z.enum(['anthropic', 'openai']).optional(),
  models: z
    .strictObject({
      chat: z.string().min(1).optional(),
      side: z.string().min(1).optional(),
    })
    .default({}),
  limits: z
    .strictObject({
      /** Model requests per minute per provider; 0 means unlimited. */
      requestsPerMinute: z.number().int().min(0).default(LIMIT_DEFAULTS.requestsPerMinute),
      /** Model requests in flight at once per provider; 0 means unlimited. */
      concurrency: z.number().int().min(0).default(LIMIT_DEFAULTS.concurrency),
      timeoutMs: z.number().int().min(1000).default(LIMIT_DEFAULTS.timeoutMs),
      maxRetries: z.number().int().min(0).max(10).default(LIMIT_DEFAULTS.maxRetries),
    })
    .default({ ...LIMIT_DEFAULTS }),
  discord: z
    .strictObject({
      /** Allowlists: empty means no restriction. */
      guilds: ids,
      channels: ids,
      roles: ids,
      users: ids,
      /** Channels where every human message is answered, not only mentions. */
      alwaysOnChannels: ids,
      /** Roles allowed to run /memory forget and /new; empty means members with Manage Messages. */
      adminRoles: ids,
      /** Who may trigger a condensation (📝, /condense); empty means anyone who can post there. */
      condenseRoles: ids,
      condenseUsers: ids,
      /** Forum tag names that mean "resolved". */
      resolvedTags: z.array(z.string().min(1)).default(['resolved', 'Resolved']),
      /** The Secretary offers, once, to condense a discussion that reached a decision nobody condensed. */
      offerCondense: z.boolean().default(true),
      /** One short line when a message contradicts a decision in force (also in console mode). */
      driftNotes: z.boolean().default(true),
      /**
       * After a start, or a reconnect that lost events, each served conversation's missed messages
       * are read back from Discord: those newer than this many minutes, at most this many per
       * conversation (one history page). Older mentions are not answered; the channel is told.
       */
      catchUp: z
        .strictObject({
          maxAgeMinutes: z.number().int().min(0).max(10_080).default(CATCH_UP_DEFAULTS.maxAgeMinutes),
          maxMessages: z.number().int().min(1).max(100).default(CATCH_UP_DEFAULTS.maxMessages),
        })
        .default({ ...CATCH_UP_DEFAULTS }),
    })
    .default({
      guilds: [],
      channels: [],
      roles: [],
      users: [],
      alwaysOnChannels: [],
      adminRoles: [],
      condenseRoles: [],
      condenseUsers: [],
      resolvedTags: ['resolved', 'Resolved'],
      offerCondense: true,
      driftNotes: true,
      catchUp: { ...CATCH_UP_DEFAULTS },
    }),
  recall: z
    .strictObject({
      budgetChars: z.number().int().min(200).max(20_000).optional(),
      maxItems: z.number().int().min(1).max(100).optional(),
      /**
       * Recall by meaning beside words: "local" (the sentence model shipped in the package, run in a
       * worker thread), "api" (an OpenAI-compatible /v1/embeddings), "off" (words only).
       */
      semantic: z.enum(['local', 'api', 'off'], { error: 'must be "local", "api" or "off"' }).default('local'),
      /** For semantic "api": the server (including /v1) and its embedding model. */
      api: z
        .strictObject({
          baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL including /v1' }).optional(),
          model: z.string().min(1).optional(),
        })
        .default({}),
    })
    .default({ semantic: 'local', api: {} }),
  conversation: z
    .strictObject({
      /** Estimated tokens of conversation kept before a compaction. */
      tokenBudget: z.number().int().min(2_000).default(24_000),
      /** Turns kept verbatim after a compaction. */
      keepRecentTurns: z.number().int().min(1).default(6),
      /** A message longer than this many characters is clipped before the model or memory sees it. */
      maxMessageChars: z.number().int().min(500).max(1_000_000).default(8_000),
    })
    .default({ tokenBudget: 24_000, keepRecentTurns: 6, maxMessageChars: 8_000 }),
  context: z
    .strictObject({
      /** CONTEXT.md is clipped to this many characters in the prompt. */
      maxChars: z.number().int().min(500).default(12_000),
    })
    .default({ maxChars: 12_000 }),
  actions: z
    .strictObject({
      /** The audit lists action items open longer than this many days. */
      staleAfterDays: z.number().int().min(1).max(3650).default(14),
    })
    .default({ staleAfterDays: 14 }),
  secretary: z
    .strictObject({
      /** The team's say on the decisions the Secretary records (condense/knowledge/ratify.ts). */
      ratify: z
        .strictObject({
          /** Members who must confirm a decision before it counts as ratified. */
          minConfirmations: z.number().int().min(1).max(25).default(1),
          /** When set, only members with this role may confirm or reopen a decision. */
          role: snowflake.optional(),
        })
        .default({ minConfirmations: 1 }),
    })
    .default({ ratify: { minConfirmations: 1 } }),
  log: z
    .strictObject({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
      format: z.enum(['json', 'pretty']).optional(),
    })
    .default({}),
});

export type ConfigFile = z.infer<typeof ConfigFileSchema>;
