import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { statOrNull } from '../../memory/dataFiles';
import type { ChannelRef } from '../../memory/paths';
import { runSideTask, SideTaskDeps } from '../../llm/sideTask';
import { KeyedQueue } from '../../shared/queue';
import { ContextData, currentDecisions } from '../knowledge/contextData';
import { byMeaning, DecisionInForce, DRIFT_INSTRUCTIONS, driftCandidates, driftInput, DriftSchema, hasStance, pickContradicted } from './drift';
import { readLedger } from '../saga/ledgerFile';

/**
 * Drift notes, the judging part, for any transport: for a person's message, the decisions in force
 * it may contradict (drift.ts's cheap rule; by meaning too when a search is given), then one small
 * side-task call, then a record so each decision is raised at most once per conversation per day
 * (`.minutes/drift.json` of the channel). Checks of one conversation run one at a time, in order, so
 * two contradicting messages in a row cannot both raise the same decision.
 */
const DriftState = z.looseObject({
  version: z.literal(1),
  /** `<conversation>|<decision id>` → the day (YYYY-MM-DD, UTC) it was last raised there. */
  raised: z.record(z.string(), z.string()),
});
type DriftState = z.infer<typeof DriftState>;

/** A search by meaning over a conversation's memory (the recall service's search), for the pre-filter. */
export type MeaningSearch = (ref: ChannelRef, text: string) => Promise<{ text: string; meaning?: number }[]>;

/**
 * How similar (in the embedder's own units, recall/calibration.ts) a decision's MEMORY.md line must be
 * to a message that takes a stance to count as the same subject. Why 0.96: the packaged model's cosine
 * 0.5 on its scale, from the drift bench (bench/drift.js) where lower let unrelated decisions through.
 */
export const DRIFT_MEANING_MIN = 0.96;

export interface DriftFinding {
  decision: DecisionInForce;
  why: string;
  /** The pinned post of its condensation, when it was posted. */
  link?: string;
}

/** How long a channel's context.json is trusted without a stat when this process has not written since. */
export const CONTEXT_RESTAT_MS = 1_000;

export class DriftChecker {
  private readonly queue = new KeyedQueue();
  /**
   * Decisions in force per context.json, kept while its size and time are unchanged (it would be read
   * per message); the 1,000 most recently used channels (a few KB each), any other is read again.
   * Stat-ed again only when this process's store has written since, or after CONTEXT_RESTAT_MS (a
   * condensation another process applied): not once per message.
   */
  private readonly cache = new LRUCache<string, { sig: string; decisions: DecisionInForce[]; checkedAt: number; version: number }>({ max: 1_000 });
  private readonly monotonicMs: () => number;

  constructor(
    private readonly o: {
      deps: SideTaskDeps;
      meaning?: MeaningSearch;
      /** A monotonic clock in ms (tests may pass their own). */
      monotonicMs?: () => number;
    },
  ) {
    this.monotonicMs = o.monotonicMs ?? (() => performance.now());
  }

  /**
   * Whether a message contradicts a decision in force here; null when not (or it was raised today).
   * `mayAct` (the transport's "may the bot post there") is asked only for a message that passes the
   * words rule, before anything is read or the model asked: most messages stop before it.
   */
  check(ref: ChannelRef, msg: { authorName: string; content: string }, o: { mayAct?: () => boolean } = {}): Promise<DriftFinding | null> {
    return this.queue.run(conversationKey(ref), () => this.checkNow(ref, msg, o.mayAct));
  }

  private async checkNow(ref: ChannelRef, msg: { authorName: string; content: string }, mayAct?: () => boolean): Promise<DriftFinding | null> {
    const { deps } = this.o;
    const all = await this.decisions(ref);
    if (!all.length) return null;
    // Most messages share nothing with any decision: they stop here, before drift.json is read
    // (the words test is per decision, so nothing past it can match when nothing here does).
    if (!driftCandidates(msg.content, all).length && !(this.o.meaning && hasStance(msg.content))) return null;
    if (mayAct && !mayAct()) return null;
    const stateFile = this.stateFile(ref);
    const today = deps.clock().toISOString().slice(0, 10);
    const conv = conversationKey(ref);
    const state = await this.readState(stateFile);
    const open = all.filter((d) => state.raised[`${conv}|${d.id}`] !== today);
    let candidates = driftCandidates(msg.content, open);
    if (!candidates.length && this.o.meaning && hasStance(msg.content)) {
      // Silent on purpose: meaning is a help to the words, and unavailable means words only.
      const items = await this.o.meaning(ref, msg.content).catch(() => []);
      candidates = byMeaning(items, open, DRIFT_MEANING_MIN);
    }
    if (!candidates.length) return null;
    const reply = await runSideTask(deps, {
      ref,
      task: 'drift',
      instructions: DRIFT_INSTRUCTIONS,
      input: driftInput(msg.authorName, msg.content, candidates),
      schema: DriftSchema,
      description: '{"contradicts", "why"}',
      maxTokens: 120,
    });
    const decision = pickContradicted(reply, candidates);
    if (!decision) return null;
    // Recorded before it is said: a crash or restart never raises it twice the same day.
    const next: DriftState = { version: 1, raised: { ...prune(state.raised, today), [`${conv}|${decision.id}`]: today } };
    await deps.store.writeState(deps.store.parentRef(ref), stateFile, next);
    return { decision, why: reply.why.replace(/\s+/g, ' ').trim(), link: await this.linkOf(ref, decision) };
  }

  /** The decisions in force of the conversation's context.json, newest first. */
  private async decisions(ref: ChannelRef): Promise<DecisionInForce[]> {
    const { store } = this.o.deps;
    const file = store.paths(ref).contextData;
    // Taken before the stat: a write that lands meanwhile makes the next check look again.
    const version = store.version;
    const checkedAt = this.monotonicMs();
    const hit = this.cache.get(file);
    if (hit && hit.version === version && checkedAt - hit.checkedAt < CONTEXT_RESTAT_MS) return hit.decisions;
    const st = await statOrNull(file);
    const sig = st ? `${st.size}:${st.mtimeMs}` : 'missing';
    if (hit?.sig === sig) {
      this.cache.set(file, { ...hit, checkedAt, version });
      return hit.decisions;
    }
    // Lenient: a broken context.json is the Secretary's to report; drift then says nothing.
    const data = st ? await store.readState(file, ContextData).catch(() => null) : null;
    const decisions = data
      ? currentDecisions(data).map((d) => ({ id: d.id, date: d.date, topic: d.topic, text: d.text, file: d.file, ledgerKey: d.ledgerKey }))
      : [];
    this.cache.set(file, { sig, decisions, checkedAt, version });
    return decisions;
  }

  private stateFile(ref: ChannelRef): string {
    return this.o.deps.store.paths(ref).drift;
  }

  private async readState(file: string): Promise<DriftState> {
    return (await this.o.deps.store.readState(file, DriftState)) ?? { version: 1, raised: {} };
  }

  /** The pinned post of the decision's condensation, from the ledger. */
  private async linkOf(ref: ChannelRef, d: DecisionInForce): Promise<string | undefined> {
    // Silent on purpose: without the ledger the note cites the file instead.
    const ledger = await readLedger(this.o.deps.store, ref).catch(() => null);
    const posted = ledger?.entries[d.ledgerKey]?.steps.posted;
    return typeof posted === 'object' ? posted.url : undefined;
  }
}

/** One conversation: a thread, or a channel without its threads. */
export function conversationKey(ref: ChannelRef): string {
  return ref.kind === 'local' ? `local:${ref.name}` : (ref.threadId ?? ref.channelId);
}

/** Only today's records are needed to say "not again today". */
function prune(raised: Record<string, string>, today: string): Record<string, string> {
  return Object.fromEntries(Object.entries(raised).filter(([, day]) => day === today));
}
