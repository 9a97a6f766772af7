import { z } from 'zod';

/**
 * Memory upkeep's cursors and schedule for one conversation, `.minutes/upkeep.json`: written and
 * read by upkeep alone (/status asks Upkeep.lastRuns). The zod schema and the type it
 * accepts share the name; objects are loose, so keys this version does not know survive a rewrite.
 */
export const UpkeepState = z.looseObject({
  version: z.literal(1),
  /** Absolute turn indexes (compacted turns included) up to which each job has read. */
  cursors: z.looseObject({ session: z.number(), memory: z.number() }),
  /** Job → ISO time it last succeeded. */
  lastRun: z.record(z.string(), z.string()),
  failures: z.record(z.string(), z.looseObject({ count: z.number(), retryAt: z.string() })),
  lastTurnAt: z.string().optional(),
  /** The last day (YYYY-MM-DD) an end-of-day HISTORY.md block was written for. */
  lastDayBlock: z.string().optional(),
  /** A compaction trimmed turns without a summary; they wait in pending-summary.json. */
  pendingSummary: z.boolean().optional(),
});
export type UpkeepState = z.infer<typeof UpkeepState>;

export function emptyUpkeepState(): UpkeepState {
  return { version: 1, cursors: { session: 0, memory: 0 }, lastRun: {}, failures: {} };
}
