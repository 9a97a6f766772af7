import { LRUCache } from 'lru-cache';
import type { Logger } from '../log/logger';
import type { ChannelRef } from '../memory/paths';
import type { ChannelStore } from '../memory/store';
import { GroupCommit } from '../memory/groupCommit';
import {
  conversationExistsSync,
  cutJournalSync,
  journalLineText,
  readJournaledConversation,
  removeJournalSync,
  snapshotValue,
} from '../memory/conversationJournal';
import { KeyedQueue } from '../shared/queue';
import { ConversationState, emptyConversation, Turn } from '../shared/conversation';

/**
 * What the chat engine announces about a conversation. The composition root passes upkeep in as a
 * listener; the engine knows nothing of it, and runs alone with none.
 */
export interface TurnListener {
  /** A turn's exchange is stored (called before the reply returns; start work, do not await it here). */
  turnStored?(ref: ChannelRef, conversation: ConversationState): void;
  /** The provider said the prompt is too long: shorten the stored conversation now; the engine then retries once. */
  contextTooLong?(ref: ChannelRef): Promise<void>;
}

export interface ConversationStoreOptions {
  store: ChannelStore;
  logger: Logger;
  /** Conversations held in memory, least recently used evicted first (re-read from disk when needed). Default 256. */
  maxHeld?: number;
  /** A journal past this size is folded into a new snapshot. Default 256 KiB. */
  journalMaxBytes?: number;
  /** How long a stored turn may wait for its fsync (see GroupCommit: what a power cut can lose). Default 1 s. */
  syncEveryMs?: number;
}

/** One conversation in memory, and where its files stand. */
interface Held {
  state: ConversationState;
  /** The last journal line written (or the snapshot's, if none since). */
  seq: number;
  journalBytes: number;
  journalExists: boolean;
  /** Snapshot writes queued and not yet landed: while any is, the conversation stays in memory. */
  writes: number;
  snapshotFile: string;
  journalFile: string;
}

const DEFAULT_MAX_HELD = 256;
const DEFAULT_JOURNAL_MAX_BYTES = 256 * 1024;
const DEFAULT_SYNC_EVERY_MS = 1_000;

/**
 * The one owner of each stored model conversation (`.minutes/conversation.json` and its journal,
 * see memory/conversationJournal.ts): it holds it in memory after the first read, applies every
 * change (a stored turn, a compaction, /new, a deleted message) one at a time per conversation,
 * and writes it. The chat engine and upkeep both change a conversation only through here, so
 * neither needs the other to do it.
 *
 * A change is a pure function of the conversation as it is when the change runs, never of a copy
 * read earlier: a turn appends its exchange to whatever a compaction left, and a compaction keeps
 * the turns appended while its summary was being written.
 *
 * A stored turn is one journal line, written before `append` resolves (so a reply sent after it
 * survives a kill -9 of the process) and fsynced with the other journals' lines within
 * `syncEveryMs` (a power cut loses at most that window). Every other change rewrites the snapshot.
 */
export class ConversationStore {
  private readonly held: LRUCache<string, Held>;
  /** Held conversations with a snapshot write in flight: never evicted until it lands. */
  private readonly pinned = new Map<string, Held>();
  private readonly changes = new KeyedQueue();
  /** Writes not yet landed (idle() waits for them). */
  private readonly saves = new Set<Promise<void>>();
  private readonly journal: GroupCommit;
  private readonly journalMaxBytes: number;

  constructor(private readonly o: ConversationStoreOptions) {
    this.held = new LRUCache<string, Held>({ max: o.maxHeld ?? DEFAULT_MAX_HELD });
    this.journalMaxBytes = o.journalMaxBytes ?? DEFAULT_JOURNAL_MAX_BYTES;
    this.journal = new GroupCommit({
      everyMs: o.syncEveryMs ?? DEFAULT_SYNC_EVERY_MS,
      onError: (err, file) => o.logger.error({ err, file }, 'could not fsync the conversation journal; will try again with the next turn'),
    });
  }

  /** How many conversations are in memory now. */
  get heldCount(): number {
    return this.held.size + [...this.pinned.keys()].filter((k) => !this.held.has(k)).length;
  }

  /** The conversation as it stands, with every change queued before this call applied. */
  get(ref: ChannelRef): Promise<ConversationState> {
    return this.changes.run(this.key(ref), async () => (await this.entry(ref)).state);
  }

  /**
   * The conversation when no file read and no pending change stands in the way: already held, or
   * new (no file yet). Synchronous, so a channel's first turn does not wait behind a burst's other
   * events for an empty answer. Undefined means: ask get().
   */
  peek(ref: ChannelRef): ConversationState | undefined {
    return this.changes.busy(this.key(ref)) ? undefined : this.heldOrNew(ref)?.state;
  }

  /**
   * Appends turns (a stored exchange) as one journal line. Resolves once the line is written (not
   * fsynced): a reply sent after this finds its exchange after a crash of the process.
   */
  append(ref: ChannelRef, turns: Turn[]): Promise<{ state: ConversationState }> {
    return this.changes.run(this.key(ref), async () => {
      const e = await this.entry(ref);
      const seq = e.seq + 1;
      const text = journalLineText(seq, turns);
      e.state = { ...e.state, turns: [...e.state.turns, ...turns] };
      e.seq = seq;
      try {
        this.journal.appendSync(e.journalFile, text, !e.journalExists);
        e.journalExists = true;
        e.journalBytes += Buffer.byteLength(text);
        if (e.journalBytes > this.journalMaxBytes && e.writes === 0) this.snapshotSoon(ref, e);
      } catch (err) {
        // The reply still goes; the whole conversation is written instead, and the journal cut after
        // it (part of the line may have been written).
        e.journalExists = true;
        e.journalBytes += Buffer.byteLength(text);
        this.o.logger.error({ err, file: e.journalFile }, 'could not append to the conversation journal; writing the whole conversation');
        this.snapshotSoon(ref, e);
      }
      return { state: e.state };
    });
  }

  /**
   * Applies `change` to the conversation as it stands and writes it whole (not an append: a
   * compaction, /new, a deleted message). Resolves with the new conversation once it is held;
   * `saved` settles when it is on disk. An idle conversation that is already held changes
   * synchronously, before this returns.
   */
  update(ref: ChannelRef, change: (c: ConversationState) => ConversationState): Promise<{ state: ConversationState; saved: Promise<void> }> {
    return this.changes.run(this.key(ref), async () => {
      const e = await this.entry(ref);
      const cur = e.state;
      const state = change(cur);
      if (state === cur) return { state, saved: Promise.resolve() };
      e.state = state;
      return { state, saved: this.snapshot(ref, e) };
    });
  }

  /** Changes applied and their writes landed (in the page cache; close() also fsyncs). */
  async idle(): Promise<void> {
    await this.changes.idle();
    while (this.saves.size) await Promise.all([...this.saves]);
  }

  /**
   * Shutdown: every held journal folded into its snapshot and removed, so conversation.json alone
   * holds the conversation; the rest fsynced.
   */
  async close(): Promise<void> {
    await this.idle();
    const open = new Map<string, Held>([...this.held.entries(), ...this.pinned.entries()]);
    await Promise.all(
      [...open.values()]
        .filter((e) => e.journalExists)
        .map(async (e) => {
          const seq = e.seq;
          const folded =
            e.journalBytes === 0 ||
            (await this.o.store.writePrivateState(e.snapshotFile, snapshotValue(e.state, seq)).then(
              () => true,
              (err) =>
                this.o.logger.error({ err, file: e.snapshotFile }, 'could not fold the conversation journal at shutdown; it is read back at the next start'),
            ));
          if (folded === true && e.seq === seq) {
            removeJournalSync(e.journalFile);
            e.journalExists = false;
            e.journalBytes = 0;
          }
        }),
    );
    await this.journal.flush();
  }

  private async entry(ref: ChannelRef): Promise<Held> {
    const found = this.heldOrNew(ref);
    if (found) return found;
    const key = this.key(ref);
    const p = this.o.store.paths(ref);
    const loaded = await readJournaledConversation(p.conversation, p.conversationJournal, { root: this.o.store.root, log: this.o.logger });
    const e = this.lookup(key) ?? { ...loaded, writes: 0, snapshotFile: p.conversation, journalFile: p.conversationJournal };
    this.held.set(key, e);
    return e;
  }

  private heldOrNew(ref: ChannelRef): Held | undefined {
    const key = this.key(ref);
    let e = this.lookup(key);
    if (!e) {
      const p = this.o.store.paths(ref);
      if (conversationExistsSync(p.conversation, p.conversationJournal)) return undefined;
      e = {
        state: emptyConversation(),
        seq: 0,
        journalBytes: 0,
        journalExists: false,
        writes: 0,
        snapshotFile: p.conversation,
        journalFile: p.conversationJournal,
      };
      this.held.set(key, e);
      // Its first turn will append here once the model has answered: the folder is made meanwhile.
      // A failure is left to that append to meet and report.
      void this.journal.prepare(p.conversationJournal).catch(() => undefined);
    }
    return e;
  }

  private lookup(key: string): Held | undefined {
    return this.pinned.get(key) ?? this.held.get(key);
  }

  /**
   * Writes the conversation whole, numbered with the last journal line it holds; once it has
   * landed, and if no line was appended meanwhile, the journal is cut. The store lands one file's
   * writes in order; a failed write is logged, the reply already went.
   */
  private snapshot(ref: ChannelRef, e: Held): Promise<void> {
    const key = this.key(ref);
    const seq = e.seq;
    e.writes++;
    this.pinned.set(key, e);
    const saved = this.o.store
      .writePrivateState(e.snapshotFile, snapshotValue(e.state, seq))
      .then(() => {
        if (e.seq === seq && e.journalBytes > 0) {
          cutJournalSync(e.journalFile);
          e.journalBytes = 0;
        }
      })
      .catch((err) => this.o.logger.error({ err, file: e.snapshotFile }, 'could not save the conversation'))
      .finally(() => {
        e.writes--;
        // Turns arrived while it was written, so the journal could not be cut: try again with them.
        if (e.writes === 0 && e.seq !== seq && e.journalBytes > this.journalMaxBytes) this.snapshotSoon(ref, e);
        if (e.writes === 0 && this.pinned.get(key) === e) this.pinned.delete(key);
      });
    this.saves.add(saved);
    const done = () => void this.saves.delete(saved);
    saved.then(done, done);
    return saved;
  }

  /** snapshot() that nobody awaits: a failure to write is logged there, anything else here. */
  private snapshotSoon(ref: ChannelRef, e: Held): void {
    void this.snapshot(ref, e).catch((err) => this.o.logger.error({ err, file: e.snapshotFile }, 'could not save the conversation'));
  }

  private key(ref: ChannelRef): string {
    return this.o.store.paths(ref).convDir;
  }
}
