import { existsSync } from '../memory/dataFiles';
import type { Logger } from '../log/logger';
import type { ChannelRef } from '../memory/paths';
import type { ChannelStore } from '../memory/store';
import { KeyedQueue } from '../shared/queue';
import { ConversationState, emptyConversation } from '../shared/conversation';
import { conversationFile, loadConversation } from './conversation';

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
}

/**
 * The one owner of each stored model conversation (`.minutes/conversation.json`): it holds it in
 * memory after the first read, applies every change (a stored turn, a compaction, /new, a deleted
 * message) one at a time per conversation, and queues its write. The chat engine and upkeep both
 * change a conversation only through here, so neither needs the other to do it.
 *
 * A change is a pure function of the conversation as it is when the change runs, never of a copy
 * read earlier: a turn appends its exchange to whatever a compaction left, and a compaction keeps
 * the turns appended while its summary was being written.
 */
export class ConversationStore {
  private readonly held = new Map<string, ConversationState>();
  private readonly changes = new KeyedQueue();
  /** Writes not yet landed (idle() waits for them). */
  private readonly saves = new Set<Promise<void>>();

  constructor(private readonly o: ConversationStoreOptions) {}

  /** The conversation as it stands, with every change queued before this call applied. */
  get(ref: ChannelRef): Promise<ConversationState> {
    return this.changes.run(this.key(ref), () => this.current(ref));
  }

  /**
   * The conversation when no file read and no pending change stands in the way: already held, or
   * new (no file yet). Synchronous, so a channel's first turn does not wait behind a burst's other
   * events for an empty answer. Undefined means: ask get().
   */
  peek(ref: ChannelRef): ConversationState | undefined {
    return this.changes.busy(this.key(ref)) ? undefined : this.heldOrNew(ref);
  }

  /**
   * Applies `change` to the conversation as it stands and queues the write. Resolves with the new
   * conversation once it is held; `saved` settles when it is on disk. An idle conversation that is
   * already held changes synchronously, before this returns.
   */
  update(ref: ChannelRef, change: (c: ConversationState) => ConversationState): Promise<{ state: ConversationState; saved: Promise<void> }> {
    const key = this.key(ref);
    return this.changes.run(key, async () => {
      const cur = this.held.get(key) ?? (await this.current(ref));
      const state = change(cur);
      this.held.set(key, state);
      return { state, saved: state === cur ? Promise.resolve() : this.persist(ref, state) };
    });
  }

  /** Changes applied and their writes landed. */
  async idle(): Promise<void> {
    await this.changes.idle();
    await Promise.all([...this.saves]);
  }

  private async current(ref: ChannelRef): Promise<ConversationState> {
    const key = this.key(ref);
    const held = this.heldOrNew(ref);
    if (held) return held;
    const loaded = await loadConversation(this.o.store, ref);
    const c = this.held.get(key) ?? loaded;
    this.held.set(key, c);
    return c;
  }

  private heldOrNew(ref: ChannelRef): ConversationState | undefined {
    const key = this.key(ref);
    let c = this.held.get(key);
    if (!c && !existsSync(conversationFile(this.o.store, ref))) {
      c = emptyConversation();
      this.held.set(key, c);
    }
    return c;
  }

  /** The store lands one file's writes in order; a failed write is logged, the reply already went. */
  private persist(ref: ChannelRef, state: ConversationState): Promise<void> {
    const file = conversationFile(this.o.store, ref);
    const saved = this.o.store.writePrivateState(file, state).catch((err) => this.o.logger.error({ err, file }, 'could not save the conversation'));
    this.saves.add(saved);
    void saved.then(() => this.saves.delete(saved));
    return saved;
  }

  private key(ref: ChannelRef): string {
    return this.o.store.paths(ref).convDir;
  }
}
