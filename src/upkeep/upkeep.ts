import { sectionText, SESSION_SECTIONS } from '../memory/grammar';
import cron, { type ScheduledTask } from 'node-cron';
import { conversationTokens } from '../shared/conversation';
import type { ConversationStore, TurnListener } from '../chat/conversationStore';
import { appendHistoryBlock, foldHistoryIfLarge } from '../memory/history';
import { ChannelRef, refLabel } from '../memory/paths';
import { compactConversation } from './compact';
import { consolidateMemory } from './consolidate';
import { emptyUpkeepState, UpkeepState } from './state';
import { backoff, dueJobs, Job, succeeded, UpkeepTuning } from './schedule';
import { refreshSession } from './session';
import type { SideTaskDeps } from '../llm/sideTask';

export interface UpkeepOptions {
  deps: SideTaskDeps;
  conversations: ConversationStore;
  tuning: UpkeepTuning;
  keepRecentTurns: number;
  /** node-cron expression for the tick; every minute by default. */
  schedule?: string;
}

/**
 * Memory upkeep, off the reply path: a node-cron tick visits active conversations one at a time,
 * asks `dueJobs` (cheap, pure) what is due, and runs it. A failed or malformed side task changes
 * nothing on disk, is logged, and is retried after a backoff; cursors move only on success.
 */
export class Upkeep implements TurnListener {
  /**
   * Only conversations this process served a turn in, never the data root's folders: Discord sends a
   * guild's events to its shard alone, so under sharding each process keeps up its own guilds only.
   */
  private readonly active = new Map<string, ChannelRef>();
  private task: ScheduledTask | null = null;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly o: UpkeepOptions) {}

  /** The engine stored a turn: decide off the reply path whether anything is due. */
  turnStored(ref: ChannelRef): void {
    this.active.set(this.o.deps.store.paths(ref).convDir, ref);
    void this.enqueue(async () => {
      const state = await this.loadState(ref);
      await this.saveState(ref, { ...state, lastTurnAt: this.o.deps.clock().toISOString() });
      // Over budget: compact soon, but never on the reply path (this runs after the reply). The
      // conversation is read now, not when the turn was noted: a compaction may have run since.
      const conv = await this.o.conversations.get(ref);
      if (conversationTokens(conv) > this.o.tuning.tokenBudget) await this.runDue(ref);
    });
  }

  start(): void {
    this.task = cron.schedule(
      this.o.schedule ?? '* * * * *',
      () => {
        void this.tick();
      },
      { noOverlap: true },
    );
  }

  /** Every active conversation, one at a time. */
  tick(opts: { forceIdle?: boolean } = {}): Promise<void> {
    return this.enqueue(async () => {
      for (const ref of this.active.values()) {
        if (this.stopped) return;
        await this.runDue(ref, opts);
      }
    });
  }

  /** A provider said the context is too long: compacts now, SESSION.md first, then memory. */
  async contextTooLong(ref: ChannelRef): Promise<void> {
    await this.runJobs(ref, ['session', 'memory'], { forceCompact: true });
    await compactConversation(this.o.deps, this.o.conversations, ref, {
      budgetTokens: this.o.tuning.tokenBudget,
      keepRecent: this.o.keepRecentTurns,
      force: true,
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.task?.destroy();
    this.task = null;
    await this.running;
  }

  /** Job → ISO time it last succeeded, for /status. */
  async lastRuns(ref: ChannelRef): Promise<Record<string, string>> {
    return (await this.loadState(ref)).lastRun;
  }

  /** For tests. */
  loadState(ref: ChannelRef): Promise<UpkeepState> {
    return this.o.deps.store.readState(this.stateFile(ref), UpkeepState).then((s) => s ?? emptyUpkeepState());
  }

  async runDue(ref: ChannelRef, opts: { forceIdle?: boolean } = {}): Promise<Job[]> {
    const conv = await this.o.conversations.get(ref);
    const state = await this.loadState(ref);
    const jobs = dueJobs({
      state,
      totalTurns: conv.compactedTurns + conv.turns.length,
      tokens: conversationTokens(conv),
      now: this.o.deps.clock(),
      tuning: this.o.tuning,
      forceIdle: opts.forceIdle,
    });
    if (jobs.length) await this.runJobs(ref, jobs);
    return jobs;
  }

  private async runJobs(ref: ChannelRef, jobs: Job[], opts: { forceCompact?: boolean } = {}): Promise<void> {
    const { deps } = this.o;
    for (const job of jobs) {
      if (this.stopped) return;
      const conv = await this.o.conversations.get(ref);
      const total = conv.compactedTurns + conv.turns.length;
      let state = await this.loadState(ref);
      try {
        if (job === 'session') {
          await refreshSession(deps, ref, conv, state.cursors.session);
          state = { ...state, cursors: { ...state.cursors, session: total } };
        } else if (job === 'memory') {
          const r = await consolidateMemory(deps, ref, conv, state.cursors.memory);
          state = { ...state, cursors: { ...state.cursors, memory: r.cursor } };
        } else if (job === 'compact' && !opts.forceCompact) {
          const outcome = await compactConversation(deps, this.o.conversations, ref, {
            budgetTokens: this.o.tuning.tokenBudget,
            keepRecent: this.o.keepRecentTurns,
            memoryCursor: state.cursors.memory,
          });
          await foldHistoryIfLarge(deps.store, ref, deps.clock());
          if (outcome === 'trimmed') {
            // Trimmed without a summary: retry the summary after the failure backoff.
            await this.saveState(ref, backoff({ ...state, pendingSummary: true }, job, deps.clock(), this.o.tuning));
            continue;
          }
          state = { ...state, pendingSummary: false };
        } else if (job === 'day') {
          const day = state.lastTurnAt!.slice(0, 10);
          await this.writeDayBlock(ref, day);
          await foldHistoryIfLarge(deps.store, ref, deps.clock());
          state = { ...state, lastDayBlock: day };
        }
        await this.saveState(ref, succeeded(state, job, deps.clock()));
      } catch (err) {
        deps.logger.warn({ channel: refLabel(ref), job, err }, 'upkeep job failed; nothing was changed, it will be retried');
        await this.saveState(ref, backoff(state, job, deps.clock(), this.o.tuning));
        // The next jobs still run: compaction is bounded by the memory cursor, so nothing unread is cut.
      }
    }
  }

  /** End of an active day: one block built from SESSION.md's goal and state, no model call. */
  private async writeDayBlock(ref: ChannelRef, day: string): Promise<void> {
    const session = (await this.o.deps.store.read(ref, 'SESSION.md')) ?? '';
    const goal = sectionText(session, SESSION_SECTIONS.goal);
    const state = sectionText(session, SESSION_SECTIONS.state);
    const body =
      [goal && goal !== '(none)' ? `Goal: ${goal}` : '', state && state !== '(none)' ? `State at the end of the day: ${state}` : '']
        .filter(Boolean)
        .join('\n') || 'The channel was active; no working state was recorded.';
    await appendHistoryBlock(this.o.deps.store, ref, { at: new Date(`${day}T23:59:59Z`), title: 'End of an active day', body });
  }

  private stateFile(ref: ChannelRef): string {
    return this.o.deps.store.paths(ref).upkeep;
  }

  private saveState(ref: ChannelRef, s: UpkeepState): Promise<void> {
    return this.o.deps.store.writeState(ref, this.stateFile(ref), s);
  }

  /** One upkeep step at a time, process-wide: upkeep never competes with itself. */
  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.running.then(step, step).catch((err) => {
      this.o.deps.logger.error({ err }, 'upkeep step failed');
    });
    this.running = next;
    return next;
  }
}
