import { StatCachedFiles, WORKSPACE_RESTAT_MS } from '../memory/statCachedFiles';
import type { Logger } from '../log/logger';
import { ModelError } from '../llm/errors';
import { emptyUsage, type ModelClient, type Usage } from '../llm/types';
import type { ChannelRef } from '../memory/paths';
import { recallDirs, workspaceFiles } from '../memory/layout';
import { KeyedQueue } from '../shared/queue';
import type { RecallItem, RecallResult } from '../recall/types';
import type { RecallService } from '../recall/service';
import { renderRecallBlock } from '../prompt/recallBlock';
import { decisionLogSources, sourcesLine } from './cite';
import { redactSecrets } from '../shared/secrets';
import type { ChannelStore } from '../memory/store';
import { assemblePrompt, AssembledPrompt } from '../prompt/assemble';
import { BOT_INSTRUCTIONS } from '../prompt/instructions';
import { clipMessage, InboundMessage, renderUserPart, storedReplies, withoutMessage } from './conversation';
import type { ConversationState } from '../shared/conversation';
import type { ConversationStore, TurnListener } from './conversationStore';
import type { UsageBook } from './usage';
import { explicitMemoryRequest } from './explicitRequests';
import { forgetRefused, permittedOps, requestSource } from './forgetting';
import { memoryRequestFailedNote, ModelErrorAfterNotes } from './turnFailure';
import { TEMPLATES } from '../memory/templates';
import type { ActivePackageReader } from '../packages/active';
import { renderPackagesBlock } from '../prompt/packagesBlock';
import { replyRecall } from './replyRecall';

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

export interface ChatEngineOptions {
  store: ChannelStore;
  model: ModelClient;
  recall: RecallService;
  /** The stored conversations, shared with upkeep. */
  conversations: ConversationStore;
  settings: ChatSettings;
  logger: Logger;
  clock?: () => Date;
  listeners?: TurnListener[];
  /** Timing marks for the load benchmark (set by the composition root): the model request leaves, its answer returns. */
  trace?: (messages: InboundMessage[], stage: 'model-sent' | 'model-done') => void;
  instructions?: string;
  usage: UsageBook;
  /** The context packages active in a conversation: their items join the prompt's stable part. */
  packages?: ActivePackageReader;
}

/** ~2,000 tokens: a long Discord message fits twice over, and six kept exchanges stay far inside a 32k window. */
export const DEFAULT_MAX_MESSAGE_CHARS = 8_000;

const SECRET_NOT_STORED = '(That looked like a password, key or private URL: it was not stored; memory and logs keep [redacted] in its place.)';

const RECALL_COMMAND_WAIT_MS = 5_000;

/** A cheap pre-check for "remember that …" / "forget …" before any file is read. */
const EXPLICIT_REQUEST = /\b(remember|note|forget)\b/i;

export interface TurnOptions {
  onText?: (delta: string) => void;
  /** The model request is about to leave (a transport times its "typing" from here). */
  onModelRequest?: () => void;
}

export interface ChatReply {
  text: string;
  usage: Usage;
  recall: RecallResult;
  /** The request as sent, for tests and /recall; absent when the reply was stored before a restart and is only sent again. */
  prompt?: AssembledPrompt;
}

/**
 * One turn of the pipeline: memory read and recall → prompt → model → conversation and usage
 * stored. Turns of one conversation run one at a time, in order; conversations run concurrently
 * (within the model limiter).
 */
export class ChatEngine {
  /**
   * Turns of one conversation in order, and the changes that must come after a turn in flight
   * (/new, a deleted message). Upkeep's changes do not wait here: they apply to the conversation as
   * it stands, through the conversation store, whenever they are ready.
   */
  private readonly turns = new KeyedQueue();
  private readonly clock: () => Date;
  /**
   * CONTEXT.md, SOUL.md and AGENTS.md change rarely: re-read only when their stat changes; the
   * workspace's two, which only people write, stat-ed once a second for every channel.
   */
  private readonly files = new StatCachedFiles({
    onUnreadable: (file, err) => this.o.logger.warn({ file, err }, 'cannot read this file; answering without it until it is readable (check its permissions)'),
  });

  constructor(private readonly o: ChatEngineOptions) {
    this.clock = o.clock ?? (() => new Date());
  }

  respond(ref: ChannelRef, messages: InboundMessage[], opts: TurnOptions = {}): Promise<ChatReply> {
    return this.turns.run(this.key(ref), () => this.turn(ref, messages, opts));
  }

  /** The stored conversation as it stands. */
  conversation(ref: ChannelRef): Promise<ConversationState> {
    return this.o.conversations.get(ref);
  }

  /** Replaces the conversation (/new) after the turns already queued, so no turn interleaves. */
  replaceConversation(ref: ChannelRef, change: (c: ConversationState) => ConversationState): Promise<ConversationState> {
    return this.turns.run(this.key(ref), async () => {
      const { state, saved } = await this.o.conversations.update(ref, change);
      await saved;
      return state;
    });
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
  async recallFor(ref: ChannelRef, query: string, opts: { explain?: boolean } = {}): Promise<{ result: RecallResult; block: string }> {
    return this.runRecall(ref, query, this.channelContext(ref), RECALL_COMMAND_WAIT_MS, opts.explain);
  }

  /** A person's explicit search of this conversation's memory: ranked matches, never abstaining. */
  async searchFor(ref: ChannelRef, query: string, limit: number): Promise<RecallItem[]> {
    return this.o.recall.search({ ...recallDirs(this.o.store.paths(ref), this.o.store.root), query, limit });
  }

  /** Turns done and their conversation writes landed. */
  async idle(): Promise<void> {
    await this.turns.idle();
    await this.o.conversations.idle();
  }

  /** CONTEXT.md as the prompt carries it: its template until the file exists (a new channel). */
  private channelContext(ref: ChannelRef): string {
    return this.files.read(this.o.store.paths(ref).context) ?? TEMPLATES['CONTEXT.md'];
  }

  private key(ref: ChannelRef): string {
    return this.o.store.paths(ref).convDir;
  }

  private async turn(ref: ChannelRef, batch: InboundMessage[], opts: TurnOptions): Promise<ChatReply> {
    const earlier = storedReplies(this.o.conversations.peek(ref) ?? (await this.o.conversations.get(ref)), batch);
    if (!earlier.replies.length) return this.newTurn(ref, batch, opts);
    if (!earlier.rest.length) return { text: earlier.replies.join('\n\n'), usage: emptyUsage(), recall: { text: '', items: [] } };
    const reply = await this.newTurn(ref, earlier.rest, opts);
    return { ...reply, text: [...earlier.replies, reply.text].join('\n\n') };
  }

  private async newTurn(ref: ChannelRef, received: InboundMessage[], opts: TurnOptions): Promise<ChatReply> {
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
    const ws = workspaceFiles(store.root);
    const context = this.channelContext(ref);
    const soul = this.files.read(ws.soul, WORKSPACE_RESTAT_MS);
    const agents = this.files.read(ws.agents, WORKSPACE_RESTAT_MS);
    const packages = renderPackagesBlock(this.o.packages?.forConversation(ref) ?? []);
    // Awaits only when there is work: each await on this path waits behind a burst's other events.
    const asking = messages.filter((m) => m.addressed !== false && EXPLICIT_REQUEST.test(m.content));
    const memoryNotes = asking.length ? await this.applyExplicitRequests(ref, asking) : [];
    // Redacted once: the prompt's newest turn, the stored turn's parts, and whether a secret was kept out.
    const redacted = messages.map((m) => redactSecrets(m.content));
    const renderedParts = messages.map((m, i) => renderUserPart(m, redacted[i]));
    const newest = renderedParts.join('\n');
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
        packages,
        conversation,
        newest,
        recallBlock: block,
      });
    let conversation = this.o.conversations.peek(ref) ?? (await this.o.conversations.get(ref));
    let prompt = build(conversation);
    let res;
    this.o.trace?.(messages, 'model-sent');
    opts.onModelRequest?.();
    // The channel's folder and templates are created in the background, not before the request:
    // the first message in a channel needs none of them (missing files read as empty, and
    // CONTEXT.md as its template), every write below creates what it needs, and under a burst of
    // first messages this work would otherwise delay every channel's request.
    store.ensureChannelSoon(ref);
    try {
      try {
        res = await this.o.model.complete({ purpose: 'chat', system: prompt.system, messages: prompt.messages, onText: opts.onText });
      } catch (err) {
        const shorten = (this.o.listeners ?? []).filter((l) => l.contextTooLong);
        if (!(err instanceof ModelError && err.kind === 'context_too_long' && shorten.length)) throw err;
        this.o.logger.warn({ channel: p.convDir }, 'provider says the context is too long; compacting now and retrying once');
        for (const l of shorten) await l.contextTooLong!(ref);
        conversation = await this.o.conversations.get(ref);
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

    this.o.trace?.(messages, 'model-done');
    // The model may repeat a secret (one it was shown before the detector knew the wording, or one
    // it made up): the reply is stored, logged and shown with the same redaction as a message.
    const replyText = redactSecrets(res.text);
    const at = this.clock().toISOString();
    // Appended to the conversation as it stands now (a compaction may have landed meanwhile), as
    // one journal line written before the reply goes (so it survives a crash of the process); the
    // reply does not wait for its fsync.
    const { state: stored } = await this.o.conversations.append(ref, [
      { role: 'user', content: newest, at, ids: messages.map((m) => m.id), parts: renderedParts },
      { role: 'assistant', content: replyText, at },
    ]);
    void this.o.usage
      .add(ref, res.model, 'chat', res.usage, this.clock())
      .catch((err) => this.o.logger.warn({ err }, 'could not count the reply in usage.json'));
    void store
      .appendJsonl(p.log, { type: 'reply', at, content: replyText, inReplyTo: messages.map((m) => m.id), model: res.model, recall: replyRecall(result) })
      .catch((err) => this.o.logger.warn({ err }, 'could not append to log.jsonl'));
    for (const l of this.o.listeners ?? []) l.turnStored?.(ref, stored);
    // The person should know a password they typed was kept out of memory (unless a note said so).
    if (messages.some((m, i) => m.addressed !== false && redacted[i] !== m.content) && !memoryNotes.some((n) => /not stored/.test(n))) {
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
      const request = explicitMemoryRequest(m.content, memory, requestSource(m));
      // Unset fields grant nothing: an admin, or the person the entry records as having said it.
      const { ops, refused } = permittedOps(request.ops, memory, { admin: m.mayForget === true, userId: m.authorId });
      if (refused.length) notes.push(`(${forgetRefused(refused.join(', '))}.)`);
      notes.push(...request.notes);
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

  private async runRecall(
    ref: ChannelRef,
    query: string,
    context: string | null,
    queryWaitMs?: number,
    explain?: boolean,
  ): Promise<{ result: RecallResult; block: string }> {
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
      ...(explain ? { explain } : {}),
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
