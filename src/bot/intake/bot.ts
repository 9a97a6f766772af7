import { ChatInputCommandInteraction, PermissionFlagsBits, Client, Events, Guild, Interaction, Message, MessageFlags, PartialMessage } from 'discord.js';
import type { ChannelCommandRunner } from '../../chat/commands';
import type { TurnOptions } from '../../chat/engine';
import type { InboundMessage } from '../../chat/conversation';
import { mayAskToForget } from '../../chat/explicitRequests';
import type { Probes } from '../../app/probes';
import type { ConfigFile } from '../../config/schema';
import type { Logger } from '../../log/logger';
import type { ChannelRef } from '../../memory/paths';
import { refLabel } from '../../memory/paths';
import type { ChannelStore } from '../../memory/store';
import type { LogRecord } from '../../chat/conversation';
import {
  ActionItemCommands,
  handleSlash,
  isAdmin,
  KnowledgeSlashCommands,
  PackCommands,
  SecretaryCommands,
  slashCommandDefinitions,
  ThreadCommands,
} from '../commands/slash';
import { refOfChannel } from './refs';
import { decide, MessageFacts, placeAllowed } from './gate';
import { Inbox } from './inbox';
import { InFlight } from './inFlight';
import { ActiveConversations } from './activeConversations';
import { ReplyChannel, ReplySender } from './replies';
import { BotActivity } from './activity';

/** Message ids remembered as taken in: far more than a catch-up reads back (100 per conversation) while the gateway runs. */
const RECEIVED_KEPT = 50_000;

/** What the bot asks of the chat engine (ChatEngine, or its proxy in front of the turn worker). */
export interface ChatTurns {
  respond(ref: ChannelRef, messages: InboundMessage[], opts: Pick<TurnOptions, 'onModelRequest'>): Promise<{ text: string }>;
  forgetMessage(ref: ChannelRef, messageId: string): Promise<boolean>;
}

export interface BotOptions {
  client: Client;
  /** Where each conversation's folder is. */
  store: ChannelStore;
  /**
   * Appends a record to the conversation's cold log (log.jsonl) where its turns run (the turn
   * worker), so a message's line is written before its reply's and off the gateway's thread.
   */
  appendLog(ref: ChannelRef, record: LogRecord): Promise<void>;
  /** The chat turn, in this thread or the turn worker (src/app/turnHost.ts). */
  engine: ChatTurns;
  config: ConfigFile;
  logger: Logger;
  clock: () => Date;
  /** /recall, /memory, /context, /new, /status: run where the engine is. */
  commands: ChannelCommandRunner;
  secretary?: SecretaryCommands & { noteChannel?(ref: ChannelRef): Promise<void> };
  threads?: ThreadCommands;
  actions?: ActionItemCommands;
  packs?: PackCommands;
  /** `/questions` and `/playbooks`. */
  knowledge?: KnowledgeSlashCommands;
  /** Sees every person's message in places the bot works (noticing decisions nobody condensed). */
  noticer?: { observe(m: Message, ref: ChannelRef): void };
  /** Sees the same messages for drift notes, and hands the reply the lines found before it goes. */
  drift?: { observe(m: Message, ref: ChannelRef, addressed: boolean): void; notesFor(messageIds: string[]): string[] };
  /** Wait before showing "typing" (default TYPING_DELAY_MS, replies.ts). */
  typingDelayMs?: number;
  /** This process's answers and REST calls in flight, shared with the Secretary (default: the bot's own). */
  activity?: BotActivity;
  trace?: Probes['trace'];
}

/**
 * The intake half of the bot: ties Discord events to the chat pipeline (the gate, the log, the
 * inbox); the inbox hands each batch, with the channel its trigger came from, to the ReplySender.
 * One instance per process.
 */
export class MinutesBot {
  readonly inbox: Inbox<ReplyChannel>;
  /** Conversations the bot works in, and those whose first-run record this process started. */
  private readonly conversations = new ActiveConversations();
  /** Event handlers in flight; `drain` closes it. */
  private readonly handlers: InFlight;
  /** Messages taken in by this process, so the gateway and the catch-up never both handle one. */
  private readonly received = new Set<string>();

  private get log() {
    return this.o.logger;
  }

  constructor(private readonly o: BotOptions) {
    this.handlers = new InFlight((err, event) => this.log.error({ err, event }, 'event handler failed'));
    const sender = new ReplySender({
      respond: (ref, messages, opts) => o.engine.respond(ref, messages, opts),
      activity: o.activity ?? new BotActivity(),
      logger: o.logger,
      trace: o.trace,
      typingDelayMs: o.typingDelayMs,
      footnotes: o.drift ? (ids) => o.drift!.notesFor(ids) : undefined,
    });
    this.inbox = new Inbox<ReplyChannel>(
      async (batch) => {
        const outcome = await sender.answer(batch);
        // Settled in the log, so a restart does not answer it again; a failed send stays owed.
        if (outcome === 'failed') return;
        const ids = batch.messages.map((m) => m.id);
        void o.appendLog(batch.ref, { type: 'answered', at: o.clock().toISOString(), ids, how: outcome }).catch(() => undefined);
      },
      (ref) => o.store.paths(ref).convDir,
      (err) => this.log.error({ err }, 'a turn failed'),
    );
  }

  /** Hands in a conversation's caught-up messages (`fill` calls the two methods below) to be answered together. */
  catchUpTogether(ref: ChannelRef, fill: () => void): void {
    this.inbox.gather(ref, fill);
  }

  /** Whether this process has taken this message in already (live, or read back by the catch-up). */
  hasReceived(id: string): boolean {
    return this.received.has(id);
  }

  /**
   * A message read back from Discord's history after downtime: handled as if it had just arrived
   * (the gate, the log unless it is there already, the inbox), without the observers, whose notes
   * would come late. Once per process, whichever of the gateway and the catch-up sees it first.
   */
  catchUpMessage(m: Message, logged: boolean): void {
    this.handlers.run('catchUp', () => this.onMessage(m, { missed: true, logged }));
  }

  /**
   * A message the log holds as owed whose original Discord no longer returns (beyond the history
   * read, or unreadable): it joins its conversation's next turn as logged.
   */
  resumeLogged(ref: ChannelRef, channel: ReplyChannel, record: Extract<LogRecord, { type: 'message' }>): void {
    if (this.handlers.closing || !this.receivedNow(record.id)) return;
    const inbound: InboundMessage = {
      id: record.id,
      authorName: record.author.name,
      authorId: record.author.id,
      content: record.content,
      at: new Date(record.at),
      addressed: record.addressed === true,
      mayForget: record.mayForget === true,
    };
    this.activate(ref);
    if (inbound.addressed) this.inbox.trigger(ref, inbound, channel);
    else this.inbox.note(ref, inbound);
  }

  /** Marks a message taken in; false when it already was. Bounded: old ids leave first. */
  private receivedNow(id: string): boolean {
    if (this.received.has(id)) return false;
    this.received.add(id);
    if (this.received.size > RECEIVED_KEPT) this.received.delete(this.received.values().next().value as string);
    return true;
  }

  attach(): void {
    const { client } = this.o;
    client.on(Events.MessageCreate, (m) => {
      this.handlers.run('messageCreate', () => this.onMessage(m));
    });
    client.on(Events.MessageDelete, (m) => {
      this.handlers.run('messageDelete', () => this.onDelete(m));
    });
    client.on(Events.MessageUpdate, (_old, m) => {
      this.handlers.run('messageUpdate', () => this.onEdit(m));
    });
    client.on(Events.InteractionCreate, (ix) => {
      this.handlers.run('interactionCreate', () => this.onInteraction(ix));
    });
    client.on(Events.ClientReady, (c) => {
      for (const g of c.guilds.cache.values()) this.handlers.run('registerCommands', () => this.registerCommands(g));
    });
    client.on(Events.GuildCreate, (g) => {
      this.handlers.run('registerCommands', () => this.registerCommands(g));
    });
  }

  /** Per guild, so commands appear at once (global ones take up to an hour to propagate). */
  async registerCommands(guild: Guild): Promise<void> {
    try {
      await guild.commands.set(slashCommandDefinitions());
    } catch (err) {
      this.log.error({ guild: guild.id, err }, 'could not register slash commands in this guild; re-invite the bot with the applications.commands scope');
    }
  }

  private async onInteraction(ix: Interaction): Promise<void> {
    if (!ix.isChatInputCommand() || !ix.guildId) return;
    const ref = await this.refForInteraction(ix);
    if (ref?.kind === 'discord' && !placeAllowed(ref.guildId, ref.channelId, ref.threadId ?? null, this.o.config.discord)) {
      await ix.reply({ content: 'Minutes is not enabled in this channel.', flags: MessageFlags.Ephemeral });
      return;
    }
    if (!ref) {
      await ix.reply({ content: 'Minutes works in server text channels and threads only.', flags: MessageFlags.Ephemeral });
      return;
    }
    await handleSlash(ix, {
      commands: this.o.commands,
      actor: ix.user.globalName ?? ix.user.username,
      ref,
      config: this.o.config,
      secretary: this.o.secretary,
      threads: this.o.threads,
      actions: this.o.actions,
      packs: this.o.packs,
      knowledge: this.o.knowledge,
    });
  }

  private async refForInteraction(ix: ChatInputCommandInteraction): Promise<ChannelRef | null> {
    // Silent on purpose: gone, or not visible to the bot: treated as absent.
    const ch = ix.channel ?? (await this.o.client.channels.fetch(ix.channelId).catch(() => null));
    return refOfChannel(ix.guildId, ch && ch.isTextBased() ? ch : null);
  }

  /** Stops taking new messages and waits for turns in flight. */
  async drain(): Promise<void> {
    // Handlers first (a message being logged, a slash command writing memory), then the turns.
    await this.handlers.close();
    await this.inbox.idle();
  }

  refFor(message: Message | PartialMessage, channel = message.channel): ChannelRef | null {
    return refOfChannel(message.guildId, channel);
  }

  private async onMessage(m: Message, missed?: { missed: true; logged: boolean }): Promise<void> {
    if (this.handlers.closing || !this.receivedNow(m.id)) return;
    const receivedAt = performance.now();
    const botId = this.o.client.user?.id;
    // The channel object as the message arrived (Message.channel is a cache lookup): the reply goes
    // back through it, so the answer never looks the channel up again.
    const channel = m.channel;
    // Where the conversation lives (a thread's parent plus the thread): the one mapping, refs.ts.
    const ref = this.refFor(m, channel);
    if (!ref || ref.kind !== 'discord') return;
    const facts: MessageFacts = {
      inGuild: m.inGuild(),
      authorIsBot: m.author.bot || m.author.id === botId,
      authorId: m.author.id,
      guildId: ref.guildId,
      channelId: ref.channelId,
      threadId: ref.threadId ?? null,
      roleIds: m.member ? [...m.member.roles.cache.keys()] : [],
      mentionsBot: botId ? m.mentions.users.has(botId) : false,
      repliesToBot: Boolean(botId && m.reference?.messageId && m.mentions.repliedUser?.id === botId),
    };
    const decision = decide(facts, this.o.config.discord);
    if (decision === 'ignore') return;
    if (!missed) {
      this.o.noticer?.observe(m, ref);
      this.o.drift?.observe(m, ref, decision === 'answer');
    }
    const isActive = decision === 'answer' || this.isActive(ref);
    if (!isActive) return;
    const inbound = this.toInbound(m, botId);
    inbound.addressed = decision === 'answer';
    inbound.mayForget = this.mayForget(m, inbound.content, facts.roleIds);
    // No await before the inbox: messages of a conversation reach it in arrival order. The log
    // line is asked for first, so it is written before the turn's reply line.
    this.activate(ref);
    this.o.trace?.(m.id, 'received', receivedAt);
    // A trigger is logged as owed a reply: the log is the record of work to do after a crash.
    const logged = missed?.logged
      ? Promise.resolve()
      : this.o.appendLog(ref, {
          type: 'message',
          id: m.id,
          author: { id: m.author.id, name: inbound.authorName },
          at: inbound.at.toISOString(),
          content: inbound.content,
          ...(inbound.addressed ? { addressed: true, mayForget: inbound.mayForget } : {}),
        });
    if (decision === 'answer') this.inbox.trigger(ref, inbound, channel);
    else this.inbox.note(ref, inbound);
    await logged;
  }

  private async onDelete(m: Message | PartialMessage): Promise<void> {
    const ref = this.refFor(m);
    if (!ref || !this.isActive(ref)) return;
    this.inbox.drop(ref, m.id);
    await this.o.engine.forgetMessage(ref, m.id);
    await this.o.appendLog(ref, { type: 'delete', id: m.id, at: this.o.clock().toISOString() });
  }

  private async onEdit(m: Message | PartialMessage): Promise<void> {
    const ref = this.refFor(m);
    if (!ref || !this.isActive(ref) || m.content === null) return;
    // Judged again on the new words: an edit can turn a waiting message into a forget request.
    this.inbox.edit(ref, m.id, m.content, this.mayForget(m, m.content));
    await this.o.appendLog(ref, {
      type: 'edit',
      id: m.id,
      at: this.o.clock().toISOString(),
      content: m.content,
    });
  }

  /**
   * The first message in a conversation creates its folder and the Secretary's first-run record,
   * behind the reply rather than before it: the turn needs neither, every write creates what it
   * needs, and the Secretary waits for its own record before an automatic condensation reads it.
   */
  private activate(ref: ChannelRef): void {
    const dir = this.o.store.paths(ref).convDir;
    if (!this.conversations.activate(dir)) return;
    // The folder itself is created by the first turn (ChatEngine), the log by its first append.
    this.o.secretary?.noteChannel?.(this.o.store.parentRef(ref))?.catch((err) => {
      this.conversations.activationFailed(dir);
      this.log.error({ channel: refLabel(ref), err }, 'could not record the first run in this channel; check the data root');
    });
  }

  private isActive(ref: ChannelRef): boolean {
    return this.conversations.isActive(this.o.store.paths(ref).convDir);
  }

  /**
   * Whether the author may make the bot forget any entry (an admin; anyone may forget an entry that
   * records them as its author: chat/forgetting.ts); worked out only for a message that could
   * ask it (a member's permissions are computed from every role and overwrite: about a tenth of the
   * bot's own work per message under `bench:load`). False for any other: nothing is forgotten on its word.
   */
  private mayForget(m: Message | PartialMessage, content: string, roleIds?: string[]): boolean {
    if (!mayAskToForget(content)) return false;
    const roles = roleIds ?? (m.member ? [...m.member.roles.cache.keys()] : []);
    return isAdmin(roles, Boolean(m.member?.permissions.has(PermissionFlagsBits.ManageMessages)), this.o.config.discord);
  }

  /** `<@id>` and `<@!id>` of the bot, made once (the id is known from login on). */
  private mentionPattern: { botId: string; re: RegExp } | undefined;

  private toInbound(m: Message, botId: string | undefined): InboundMessage {
    let content = m.content ?? '';
    if (botId) {
      if (this.mentionPattern?.botId !== botId) this.mentionPattern = { botId, re: new RegExp(`<@!?${botId}>`, 'g') };
      content = content.replace(this.mentionPattern.re, '@Minutes').trim();
    }
    const files = [...m.attachments.values()].map((a) => a.name).filter(Boolean);
    if (files.length) content = `${content}${content ? '\n' : ''}(attached: ${files.join(', ')})`;
    if (!content.trim()) content = '(an empty message)';
    const authorName = m.member?.displayName ?? m.author.globalName ?? m.author.username;
    return { id: m.id, authorName, authorId: m.author.id, content, at: m.createdAt };
  }
}
