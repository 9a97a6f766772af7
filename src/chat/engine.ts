import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync } from '../memory/dataFiles';
import { StatCachedFiles } from '../memory/statCachedFiles';
import type { Logger } from '../log/logger';
import { ModelError } from '../llm/errors';
import type { ModelClient, Usage } from '../llm/types';
import type { ChannelRef } from '../memory/paths';
import { recallDirs, workspaceFiles } from '../memory/layout';
import { KeyedQueue } from '../shared/queue';
import type { RecallItem, RecallResult } from '../recall/types';
import type { RecallService } from '../recall/service';
import { renderRecallBlock } from '../prompt/recallBlock';
import { decisionLogSources, sourcesLine } from './cite';
import { containsSecret, redactSecrets } from '../shared/secrets';
import type { ChannelStore } from '../memory/store';
import { assemblePrompt, AssembledPrompt } from '../prompt/assemble';
import { BOT_INSTRUCTIONS } from '../prompt/instructions';
import { clipMessage, conversationFile, InboundMessage, loadConversation, mergeUserTurn, renderUserPart, withoutMessage } from './conversation';
import { ConversationState, emptyConversation } from '../shared/conversation';
import type { UsageBook } from './usage';
import { explicitMemoryRequest } from './explicitRequests';
import { memoryRequestFailedNote, ModelErrorAfterNotes } from './turnFailure';
import { TEMPLATES } from '../memory/templates';

export interface ChatSettings {
  contextMaxChars: number;
  /**
   * A message longer than this is clipped before anything reads it (the prompt, memory requests,
   * the stored conversation), so one pasted file cannot overflow the model's window turn after turn.
   */
  maxMessageChars?: number;
  recallBudgetChars?: number;
  recallMaxItems?: number;
}

/** Upkeep hooks the engine calls; all optional so the engine runs alone in tests. */
export interface ChatHooks {
  /** After a turn is stored: upkeep decides off the reply path whether anything is due. */
  afterTurn?(ref: ChannelRef, conversation: ConversationState): void;
  /** A "context too long" answer: compact now, then the engine retries once. */
  compactNow?(ref: ChannelRef): Promise<void>;
}

export interface ChatEngineOptions {
  store: ChannelStore;
  model: ModelClient;
  recall: RecallService;
  settings: ChatSettings;
  logger: Logger;
  clock?: () => Date;
  hooks?: ChatHooks;
  instructions?: string;
  usage: UsageBook;
}

/** ~2,000 tokens: a long Discord message fits twice over, and six kept exchanges stay far inside a 32k window. */
export const DEFAULT_MAX_MESSAGE_CHARS = 8_000;

const SECRET_NOT_STORED = '(That looked like a password, key or private URL: it was not stored; memory and logs keep [redacted] in its place.)';

const RECALL_COMMAND_WAIT_MS = 5_000;

/** A cheap pre-check for "remember that …" / "forget …" before any file is read. */
const EXPLICIT_REQUEST = /\b(remember|note|forget)\b/i;

export interface TurnOptions {
  onText?: (delta: string) => void;
  /** Timing marks for the load benchmark: when the model request leaves and its answer returns. */
  trace?: (stage: 'model-sent' | 'model-done') => void;
}

export interface ChatReply {
  text: string;
  usage: Usage;
  recall: RecallResult;
  /** The request as sent, for tests and /recall. */
  prompt: AssembledPrompt;
}

/**
 * One turn of the pipeline: memory read and recall → prompt → model → conversation and usage
 * stored. Turns of one conversation run one at a time, in order; conversations run concurrently
 * (within the model limiter).
 */
export class ChatEngine {
  private readonly turns = new KeyedQueue();
  private readonly conversations = new Map<string, ConversationState>();
  /** Which conversation's turn the current async call chain belongs to. */
  private readonly turnContext = new AsyncLocalStorage<string>();
  /** Conversation writes not yet landed (idle() waits for them). */
  private readonly saves = new Set<Promise<void>>();
  private readonly clock: () => Date;
  /** CONTEXT.md, SOUL.md and AGENTS.md change rarely: re-read only when their stat changes. */
  private readonly files = new StatCachedFiles((file, err) =>
    this.o.logger.warn({ file, err }, 'cannot read this file; answering without it until it is readable (check its permissions)'),
  );

  constructor(private readonly o: ChatEngineOptions) {
    this.clock = o.clock ?? (() => new Date());
  }

  respond(ref: ChannelRef, messages: InboundMessage[], opts: TurnOptions = {}): Promise<ChatReply> {
    const key = this.key(ref);
    return this.turns.run(key, () => this.turnContext.run(key, () => this.turn(ref, messages, opts)));
  }

  /** The conversation as the engine holds it (loaded from disk on first use). */
  async conversation(ref: ChannelRef): Promise<ConversationState> {
    const key = this.key(ref);
    const held = this.heldOrNew(ref);
    if (held) return held;
    const loaded = await loadConversation(this.o.store, ref);
    const c = this.conversations.get(key) ?? loaded;
    this.conversations.set(key, c);
    return c;
  }

  /**
   * The conversation when no file read is needed: already held, or new (no file yet). Synchronous,
   * so a channel's first turn does not wait behind a burst's other events for an empty answer.
   */
  private heldOrNew(ref: ChannelRef): ConversationState | undefined {
    const key = this.key(ref);
    let c = this.conversations.get(key);
    if (!c && !existsSync(conversationFile(this.o.store, ref))) {
      c = emptyConversation();
      this.conversations.set(key, c);
    }
    return c;
  }

  /** Replaces the conversation (compaction, /new) inside the turn queue, so no turn interleaves. */
  replaceConversation(ref: ChannelRef, change: (c: ConversationState) => ConversationState): Promise<ConversationState> {
    const apply = async () => {
      const next = change(await this.conversation(ref));
      this.conversations.set(this.key(ref), next);
      await this.persist(ref, next);
      return next;
    };
    // Called from inside this conversation's turn (a "context too long" compaction), the turn is
    // waiting for this: queueing behind it would deadlock. Anyone else (upkeep) waits its turn.
    if (this.turnContext.getStore() === this.key(ref)) return apply();
    return this.turns.run(this.key(ref), apply);
  }

  /** A deleted message leaves the stored conversation (and so every later prompt and upkeep). */
  async forgetMessage(ref: ChannelRef, messageId: string): Promise<boolean> {
    let changed = false;
    await this.replaceConversation(ref, (c) => {
      const next = withoutMessage(c, messageId);
      changed = next !== null;
      return next ?? c;
    });
    return changed;
  }

  /**
   * The recall that would be injected for this text, as a turn computes it, except that it waits
   * up to 5 s for the text's vector (a turn waits ~150 ms, then goes by words): a person asking
   * `/recall` should see what meaning finds, also on a busy machine.
   */
  async recallFor(ref: ChannelRef, query: string): Promise<{ result: RecallResult; block: string }> {
    return this.runRecall(ref, query, this.channelContext(ref), RECALL_COMMAND_WAIT_MS);
  }

  /** A person's explicit search of this conversation's memory: ranked matches, never abstaining. */
  async searchFor(ref: ChannelRef, query: string, limit: number): Promise<RecallItem[]> {
    return this.o.recall.search({ ...recallDirs(this.o.store.paths(ref), this.o.store.root), query, limit });
  }

  /** Turns done and their conversation writes landed. */
  async idle(): Promise<void> {
    await this.turns.idle();
    await Promise.all([...this.saves]);
  }

  /**
   * Queues the conversation's write and returns its promise. A turn does not wait for it: the
   * reply goes out first; the store lands one file's writes in order.
   */
  private persist(ref: ChannelRef, state: ConversationState): Promise<void> {
    const file = conversationFile(this.o.store, ref);
    const saved = this.o.store.writePrivateState(file, state).catch((err) => this.o.logger.error({ err, file }, 'could not save the conversation'));
    this.saves.add(saved);
    void saved.then(() => this.saves.delete(saved));
    return saved;
  }

  /** CONTEXT.md as the prompt carries it: its template until the file exists (a new channel). */
  private channelContext(ref: ChannelRef): string {
    return this.files.read(this.o.store.paths(ref).context) ?? TEMPLATES['CONTEXT.md'];
  }

  private key(ref: ChannelRef): string {
    return this.o.store.paths(ref).convDir;
  }

  private async turn(ref: ChannelRef, received: InboundMessage[], opts: TurnOptions): Promise<ChatReply> {
    const store = this.o.store;
    const maxChars = this.o.settings.maxMessageChars ?? DEFAULT_MAX_MESSAGE_CHARS;
    const messages = received.map((m) => clipMessage(m, maxChars));
    const clipNotes = received
      .filter((m) => m.addressed !== false && m.content.length > maxChars)
      .map(
        (m) =>
          `(Your message had ${m.content.length.toLocaleString('en-US')} characters; only the first ${maxChars.toLocaleString('en-US')} were read. Send a long text in parts, or an admin can raise conversation.maxMessageChars.)`,
      );
    const p = store.paths(ref);
    // The channel's folder and templates are created behind the model call, not before it: the
    // first message in a channel needs none of them (missing files read as empty, and CONTEXT.md
    // as its template), and every write below creates what it needs.
    void store.ensureChannel(ref).catch((err) => this.o.logger.error({ channel: p.convDir, err }, 'could not create the channel folder; check the data root'));
    const ws = workspaceFiles(store.root);
    const context = this.channelContext(ref);
    const soul = this.files.read(ws.soul);
    const agents = this.files.read(ws.agents);
    // Awaits only when there is work: each await on this path waits behind a burst's other events.
    const asking = messages.filter((m) => m.addressed !== false && EXPLICIT_REQUEST.test(m.content));
    const memoryNotes = asking.length ? await this.applyExplicitRequests(ref, asking) : [];
    const newest = mergeUserTurn(messages);
    const query = messages.map((m) => m.content).join('\n');
    // The only wait for meaning: this message's vector, bounded (service.ts); lines not yet
    // embedded are scored by words.
    const { result, block } = await this.runRecall(ref, query, context);

    const build = (conversation: ConversationState) =>
      assemblePrompt({
        instructions: this.o.instructions ?? BOT_INSTRUCTIONS,
        soul,
        agents,
        context,
        contextMaxChars: this.o.settings.contextMaxChars,
        conversation,
        newest,
        recallBlock: block,
      });
    let conversation = this.heldOrNew(ref) ?? (await this.conversation(ref));
    let prompt = build(conversation);
    let res;
    opts.trace?.('model-sent');
    try {
      try {
        res = await this.o.model.complete({ purpose: 'chat', system: prompt.system, messages: prompt.messages, onText: opts.onText });
      } catch (err) {
        if (!(err instanceof ModelError && err.kind === 'context_too_long' && this.o.hooks?.compactNow)) throw err;
        this.o.logger.warn({ channel: p.convDir }, 'provider says the context is too long; compacting now and retrying once');
        await this.o.hooks.compactNow(ref);
        conversation = await this.conversation(ref);
        prompt = build(conversation);
        res = await this.o.model
          .complete({ purpose: 'chat', system: prompt.system, messages: prompt.messages, onText: opts.onText })
          .catch((again: unknown) => {
            throw again instanceof ModelError && again.kind === 'context_too_long' ? stillTooLong(again) : again;
          });
      }
    } catch (err) {
      // The message is in the log (the transport appended it); what became of it is too, so a
      // failed turn is never just missing.
      const error = err instanceof ModelError ? err.userMessage() : err instanceof Error ? err.message.split('\n')[0] : String(err);
      void store
        .appendJsonl(p.log, { type: 'error', at: this.clock().toISOString(), inReplyTo: messages.map((m) => m.id), error })
        .catch((e) => this.o.logger.warn({ err: e }, 'could not append to log.jsonl'));
      // Memory was already changed above: the failure must not hide what was saved or forgotten.
      if (memoryNotes.length && err instanceof ModelError) throw new ModelErrorAfterNotes(err, memoryNotes);
      throw err;
    }

    opts.trace?.('model-done');
    // The model may repeat a secret (one it was shown before the detector knew the wording, or one
    // it made up): the reply is stored, logged and shown with the same redaction as a message.
    const replyText = redactSecrets(res.text);
    const at = this.clock().toISOString();
    const next: ConversationState = {
      ...conversation,
      turns: [
        ...conversation.turns,
        { role: 'user', content: newest, at, ids: messages.map((m) => m.id), parts: messages.map(renderUserPart) },
        { role: 'assistant', content: replyText, at },
      ],
    };
    this.conversations.set(this.key(ref), next);
    void this.persist(ref, next);
    void this.o.usage.add(ref, res.model, 'chat', res.usage, this.clock());
    void store
      .appendJsonl(p.log, { type: 'reply', at, content: replyText, inReplyTo: messages.map((m) => m.id), model: res.model })
      .catch((err) => this.o.logger.warn({ err }, 'could not append to log.jsonl'));
    // Upkeep starts its own work here; it must not run as part of this turn's context (it would
    // bypass the turn queue when it replaces the conversation).
    this.turnContext.exit(() => this.o.hooks?.afterTurn?.(ref, next));
    // The person should know a password they typed was kept out of memory (unless a note said so).
    if (messages.some((m) => m.addressed !== false && containsSecret(m.content)) && !memoryNotes.some((n) => /not stored/.test(n))) {
      memoryNotes.push(SECRET_NOT_STORED);
    }
    const cited = sourcesLine(decisionLogSources(replyText, result.items));
    const body = cited ? `${replyText}\n\n${cited}` : replyText;
    const notes = [...clipNotes, ...memoryNotes];
    const text = notes.length ? `${body}\n\n_${notes.join(' ')}_` : body;
    return { text, usage: res.usage, recall: result, prompt };
  }

  /** "remember that …" / "forget …" are applied at once; the reply says what was done. */
  private async applyExplicitRequests(ref: ChannelRef, asking: InboundMessage[]): Promise<string[]> {
    const notes: string[] = [];
    // Silent on purpose: an unreadable MEMORY.md only means no match; the write path reports it.
    const memory = (await this.o.store.read(this.o.store.parentRef(ref), 'MEMORY.md').catch(() => null)) ?? '';
    for (const m of asking) {
      const request = explicitMemoryRequest(m.content, memory, `${m.authorName}, msg ${m.id}`);
      const mayForget = m.mayForget !== false;
      const ops = request.ops.filter((op) => op.op !== 'forget' || mayForget);
      if (request.forgetAsked && !mayForget) notes.push('(Only admins can make me forget a memory entry.)');
      else notes.push(...request.notes);
      if (!ops.length) continue;
      try {
        const r = await this.o.store.applyMemoryOps(ref, ops);
        // Say exactly what changed, in the entry's own words, so a misheard request is seen at once.
        for (const a of r.applied) {
          if (a.op.op === 'forget') notes.push(`(Forgot ${a.id}: "${r.forgotten.find((f) => f.id === a.id)?.text ?? a.op.text ?? ''}".)`);
          else notes.push(`(Saved to memory as ${a.id}: "${a.op.text}".)`);
        }
        for (const sk of r.skipped) notes.push(`(Not saved to memory: ${sk.why}.)`);
      } catch (err) {
        this.o.logger.warn({ err }, 'explicit memory request failed');
        notes.push(memoryRequestFailedNote(err));
      }
    }
    return notes;
  }

  private async runRecall(ref: ChannelRef, query: string, context: string | null, queryWaitMs?: number): Promise<{ result: RecallResult; block: string }> {
    const exclude = new Set(
      (context ?? '')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l.length > 20),
    );
    const result = await this.o.recall.recall({
      ...recallDirs(this.o.store.paths(ref), this.o.store.root),
      query,
      now: this.clock(),
      budgetChars: this.o.settings.recallBudgetChars,
      maxItems: this.o.settings.recallMaxItems,
      exclude,
      queryWaitMs,
    });
    return { result, block: renderRecallBlock(result) };
  }
}

/**
 * Too long even with the conversation compacted: the message itself (or the model's window) is the
 * problem. Nothing of the turn was stored, so the next message starts from the compacted state.
 */
function stillTooLong(err: ModelError): ModelError {
  return new ModelError('context_too_long', err.message, {
    provider: err.provider,
    status: err.status,
    cause: err,
    hint: "This is too long for the model even after compacting the conversation, and nothing of it was stored: send a shorter message (or an admin can lower conversation.maxMessageChars to fit the model's window).",
  });
}
