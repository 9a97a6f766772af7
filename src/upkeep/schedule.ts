/**
 * Pure decisions for upkeep: which jobs are due for one conversation, from cheap facts only
 * (no file reads, no model calls). The scheduler calls this every tick for every active channel.
 */
import type { UpkeepState } from './state';

export interface UpkeepTuning {
  /** Refresh SESSION.md after this many new exchanges even without a pause. */
  sessionEveryExchanges: number;
  /** Consolidate MEMORY.md after this many new exchanges even without a pause. */
  memoryEveryExchanges: number;
  /** A channel this long without a turn counts as idle: upkeep catches up then. */
  idleMs: number;
  /** First wait after a failed job; doubles per failure up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
  tokenBudget: number;
}

export const DEFAULT_UPKEEP: UpkeepTuning = {
  // Every 4 exchanges keeps SESSION.md a few minutes fresh at chat pace for about one small call.
  sessionEveryExchanges: 4,
  // Durable facts are rarer; batching 10 exchanges keeps consolidation a small share of the cost.
  memoryEveryExchanges: 10,
  idleMs: 10 * 60_000,
  backoffMs: 5 * 60_000,
  maxBackoffMs: 2 * 60 * 60_000,
  tokenBudget: 24_000,
};

export type Job = 'compact' | 'session' | 'memory' | 'day';

export interface DueInput {
  state: UpkeepState;
  totalTurns: number;
  tokens: number;
  now: Date;
  tuning: UpkeepTuning;
  /** End of input in console mode: treat the channel as idle now. */
  forceIdle?: boolean;
}

export function dueJobs(i: DueInput): Job[] {
  const { state, totalTurns, now, tuning } = i;
  const lastTurn = state.lastTurnAt ? Date.parse(state.lastTurnAt) : 0;
  const idle = i.forceIdle || (lastTurn > 0 && now.getTime() - lastTurn >= tuning.idleMs);
  const blocked = (job: Job) => {
    const f = state.failures[job];
    return f !== undefined && Date.parse(f.retryAt) > now.getTime();
  };
  const jobs: Job[] = [];
  const newSession = (totalTurns - state.cursors.session) / 2;
  const newMemory = (totalTurns - state.cursors.memory) / 2;
  const overBudget = i.tokens > tuning.tokenBudget;
  // Compaction first refreshes SESSION.md and consolidates, whatever their own schedule says.
  if (overBudget && !blocked('compact')) return (['session', 'memory', 'compact'] as Job[]).filter((j) => j === 'compact' || !blocked(j));
  if (state.pendingSummary && !blocked('compact')) jobs.push('compact');
  if (newSession > 0 && (idle || newSession >= tuning.sessionEveryExchanges) && !blocked('session')) jobs.push('session');
  if (newMemory > 0 && (idle || newMemory >= tuning.memoryEveryExchanges) && !blocked('memory')) jobs.push('memory');
  if (lastTurn > 0 && idle) {
    const day = new Date(lastTurn).toISOString().slice(0, 10);
    const today = now.toISOString().slice(0, 10);
    if (day < today && state.lastDayBlock !== day && !blocked('day')) jobs.push('day');
  }
  return jobs;
}

export function backoff(state: UpkeepState, job: Job, now: Date, tuning: UpkeepTuning): UpkeepState {
  const count = (state.failures[job]?.count ?? 0) + 1;
  const wait = Math.min(tuning.maxBackoffMs, tuning.backoffMs * 2 ** (count - 1));
  return { ...state, failures: { ...state.failures, [job]: { count, retryAt: new Date(now.getTime() + wait).toISOString() } } };
}

export function succeeded(state: UpkeepState, job: Job, now: Date): UpkeepState {
  const failures = { ...state.failures };
  delete failures[job];
  return { ...state, failures, lastRun: { ...state.lastRun, [job]: now.toISOString() } };
}
