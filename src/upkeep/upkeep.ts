import { sectionText, SESSION_SECTIONS } from '../memory/grammar';
import cron, { type ScheduledTask } from 'node-cron';
import { ConversationState, conversationTokens } from '../shared/conversation';
import type { ConversationStore, TurnListener } from '../chat/conversationStore';
import { appendHistoryBlock, foldHistoryIfLarge } from '../memory/history';
import { ChannelRef, refLabel } from '../memory/paths';
import { compactConversation } from './compact';
import { consolidateMemory } from './consolidate';
import { emptyUpkeepState, UpkeepState } from './state';
import { backoff, dueJobs, Job, succeeded, UpkeepTuning } from './schedule';
import { refreshSession } from './session';
import type { SideTaskDeps } from '../llm/sideTask';

/** A conversation this process served a turn in. */
interface Active {
  ref: ChannelRef;
  /** When its last turn was stored (ISO), and the value upkeep.json last got. */
  lastTurnAt?: string;
  savedLastTurnAt?: string;
}

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
  private readonly active = new Map<string, Active>();
  private task: ScheduledTask | null = null;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly o: UpkeepOptions) {}

  /**
   * The engine stored a turn: note its time (in memory: it reaches upkeep.json with upkeep's next
   * write, or at stop, and after a crash it is read from the conversation's last turn) and, off
   * the reply path, compact if the conversation is over budget.
   */
  turnStored(ref: ChannelRef, conversation: ConversationState): void {
    const key = this.o.deps.store.paths(ref).convDir;
    this.active.set(key, { ref, lastTurnAt: this.o.deps.clock().toISOString(), savedLastTurnAt: this.active.get(key)?.savedLastTurnAt });
    if (conversationTokens(conversation) <= this.o.tuning.tokenBudget) return;
    // enqueue logs a step that failed; the catch is for anything past that.
    void this.enqueue(async () => {
      // Read again now, not as it was when the turn was noted: a compaction may have run since.
      const conv = await this.o.conversations.get(ref);
      if (conversationTokens(conv) > this.o.tuning.tokenBudget) await this.runDue(ref);
    }).catch((err) => this.o.deps.logger.error({ err }, 'upkeep step failed'));
  }

  start(): void {
    this.task = cron.schedule(
      this.o.schedule ?? '* * * * *',
      () => {
        void this.tick().catch((err) => this.o.deps.logger.error({ err }, 'upkeep tick failed'));
      },
      { noOverlap: true },
    );
  }

  /** Every active conversation, one at a time. */
  tick(opts: { forceIdle?: boolean } = {}): Promise<void> {
    return this.enqueue(async () => {
      for (const { ref } of this.active.values()) {
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
    await this.saveLastTurns();
  }

  /** Job → ISO time it last succeeded, for /status. */
  async lastRuns(ref: ChannelRef): Promise<Record<string, string>> {
    return (await this.loadState(ref)).lastRun;
  }

  /**
   * The state as it stands: upkeep.json, with the time of the last turn as known now (noted in
   * memory, or the conversation's last turn when the file is older, as after a crash).
   */
  async loadState(ref: ChannelRef, conv?: ConversationState): Promise<UpkeepState> {
    const stored = (await this.o.deps.store.readState(this.stateFile(ref), UpkeepState)) ?? emptyUpkeepState();
    const turns = (conv ?? (await this.o.conversations.get(ref))).turns;
    const noted = this.active.get(this.o.deps.store.paths(ref).convDir)?.lastTurnAt;
    const latest = [stored.lastTurnAt, noted, turns[turns.length - 1]?.at]
      .filter((t): t is string => Boolean(t))
      .sort((a, b) => Date.parse(a) - Date.parse(b))
      .pop();
    return latest ? { ...stored, lastTurnAt: latest } : stored;
  }

  async runDue(ref: ChannelRef, opts: { forceIdle?: boolean } = {}): Promise<Job[]> {
    const conv = await this.o.conversations.get(ref);
    const state = await this.loadState(ref, conv);
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
      let state = await this.loadState(ref, conv);
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

  private async saveState(ref: ChannelRef, s: UpkeepState): Promise<void> {
    await this.o.deps.store.writeState(ref, this.stateFile(ref), s);
    const a = this.active.get(this.o.deps.store.paths(ref).convDir);
    if (a) a.savedLastTurnAt = s.lastTurnAt;
  }

  /** At stop: the last turn's time of each conversation whose upkeep.json does not have it yet. */
  private async saveLastTurns(): Promise<void> {
    for (const a of this.active.values()) {
      if (!a.lastTurnAt || a.lastTurnAt === a.savedLastTurnAt) continue;
      try {
        const stored = (await this.o.deps.store.readState(this.stateFile(a.ref), UpkeepState)) ?? emptyUpkeepState();
        if (stored.lastTurnAt && Date.parse(stored.lastTurnAt) >= Date.parse(a.lastTurnAt)) continue;
        await this.saveState(a.ref, { ...stored, lastTurnAt: a.lastTurnAt });
      } catch (err) {
        // Not lost: the next start reads it from the conversation's last turn.
        this.o.deps.logger.warn({ channel: refLabel(a.ref), err }, 'could not record the time of the last turn at stop');
      }
    }
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
