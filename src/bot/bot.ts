import { existsSync } from '../memory/dataFiles';
import {
  ChatInputCommandInteraction,
  PermissionFlagsBits,
  Client,
  DiscordAPIError,
  Events,
  Guild,
  GuildBasedChannel,
  Interaction,
  Message,
  MessageFlags,
  PartialMessage,
  RESTJSONErrorCodes,
  TextBasedChannel,
} from 'discord.js';
import type { CommandContext } from '../chat/commands';
import { botPermissionsIn, canSpeak, missingPermissions } from './permissions';
import { ActionItemCommands, handleSlash, isAdmin, SecretaryCommands, slashCommandDefinitions, ThreadCommands } from './slash';
import type { InboundMessage } from '../chat/conversation';
import type { Runtime } from '../app/runtime';
import { ModelError } from '../llm/errors';
import type { ChannelRef } from '../memory/paths';
import { refLabel } from '../memory/paths';
import { NO_PINGS } from './client';
import { refOfChannel } from './refs';
import { decide, MessageFacts, placeAllowed } from './gate';
import { Inbox, Pending } from './inbox';
import { InFlight } from './inFlight';
import { splitReply } from './split';

/** Discord shows "typing" for about 10 s; renew a little before it lapses. */
const TYPING_RENEW_MS = 8_000;
/**
 * Typing starts only when an answer takes longer than this: a quick answer needs no indicator,
 * and each typing call spends one of discord.js's 50 REST requests a second.
 */
export const TYPING_DELAY_MS = 400;
/** Discord error codes for a missing permission or access in a channel. */
const PERMISSION_CODES = new Set<number>([RESTJSONErrorCodes.MissingAccess, RESTJSONErrorCodes.MissingPermissions]);

export interface BotOptions {
  client: Client;
  runtime: Runtime;
  secretary?: SecretaryCommands & { noteChannel?(ref: ChannelRef): Promise<void> };
  threads?: ThreadCommands;
  actions?: ActionItemCommands;
  /** Sees every person's message in places the bot works (noticing decisions nobody condensed). */
  noticer?: { observe(m: Message, ref: ChannelRef): void };
  /** Wait before showing "typing" (default TYPING_DELAY_MS). */
  typingDelayMs?: number;
  /** Timing marks per triggering message, for the load benchmark. */
  trace?: (messageId: string, stage: TraceStage, at: number) => void;
}

export type TraceStage = 'received' | 'model-sent' | 'model-done' | 'send-issued' | 'send-done';

/** Ties Discord events to the chat pipeline. One instance per process. */
export class MinutesBot {
  readonly inbox: Inbox;
  private readonly active = new Set<string>();
  /** Conversations whose folder and first-run record were started by this process. */
  private readonly activated = new Set<string>();
  private readonly reportedPermission = new Set<string>();
  /** Event handlers in flight; `drain` closes it. */
  private readonly handlers: InFlight;

  private get log() {
    return this.o.runtime.logger;
  }

  constructor(private readonly o: BotOptions) {
    this.handlers = new InFlight((err, event) => this.log.error({ err, event }, 'event handler failed'));
    this.inbox = new Inbox(
      (batch) => this.answer(batch),
      (ref) => o.runtime.store.paths(ref).convDir,
    );
  }

  attach(): void {
    const { client } = this.o;
    client.on(Events.MessageCreate, (m) => {
      void this.handlers.run('messageCreate', () => this.onMessage(m));
    });
    client.on(Events.MessageDelete, (m) => {
      void this.handlers.run('messageDelete', () => this.onDelete(m));
    });
    client.on(Events.MessageUpdate, (_old, m) => {
      void this.handlers.run('messageUpdate', () => this.onEdit(m));
    });
    client.on(Events.InteractionCreate, (ix) => {
      void this.handlers.run('interactionCreate', () => this.onInteraction(ix));
    });
    client.on(Events.ClientReady, (c) => {
      for (const g of c.guilds.cache.values()) void this.handlers.run('registerCommands', () => this.registerCommands(g));
    });
    client.on(Events.GuildCreate, (g) => {
      void this.handlers.run('registerCommands', () => this.registerCommands(g));
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
    if (ref?.kind === 'discord' && !placeAllowed(ref.guildId, ref.channelId, ref.threadId ?? null, this.o.runtime.settings.config.discord)) {
      await ix.reply({ content: 'Minutes is not enabled in this channel.', flags: MessageFlags.Ephemeral });
      return;
    }
    if (!ref) {
      await ix.reply({ content: 'Minutes works in server text channels and threads only.', flags: MessageFlags.Ephemeral });
      return;
    }
    const ctx: CommandContext = {
      store: this.o.runtime.store,
      engine: this.o.runtime.engine,
      clock: this.o.runtime.clock,
      usage: this.o.runtime.usage,
      actor: ix.user.globalName ?? ix.user.username,
    };
    await handleSlash(ix, { ctx, ref, config: this.o.runtime.settings.config, secretary: this.o.secretary, threads: this.o.threads, actions: this.o.actions });
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

  refFor(message: Message | PartialMessage): ChannelRef | null {
    return refOfChannel(message.guildId, message.channel);
  }

  private async onMessage(m: Message): Promise<void> {
    if (this.handlers.closing) return;
    const receivedAt = performance.now();
    const botId = this.o.client.user?.id;
    const ch = m.channel;
    const facts: MessageFacts = {
      inGuild: m.inGuild(),
      authorIsBot: m.author.bot || m.author.id === botId,
      authorId: m.author.id,
      guildId: m.guildId,
      channelId: ch.isThread() ? (ch.parentId ?? ch.id) : ch.id,
      threadId: ch.isThread() ? ch.id : null,
      roleIds: m.member ? [...m.member.roles.cache.keys()] : [],
      mentionsBot: botId ? m.mentions.users.has(botId) : false,
      repliesToBot: Boolean(botId && m.reference?.messageId && m.mentions.repliedUser?.id === botId),
    };
    const decision = decide(facts, this.o.runtime.settings.config.discord);
    if (decision === 'ignore') return;
    const ref = this.refFor(m);
    if (!ref) return;
    this.o.noticer?.observe(m, ref);
    const isActive = decision === 'answer' || this.isActive(ref);
    if (!isActive) return;
    const inbound = this.toInbound(m, botId);
    inbound.addressed = decision === 'answer';
    inbound.mayForget = isAdmin(facts.roleIds, Boolean(m.member?.permissions.has(PermissionFlagsBits.ManageMessages)), this.o.runtime.settings.config.discord);
    // No await before the inbox: messages of a conversation reach it in arrival order.
    this.activate(ref);
    this.o.trace?.(m.id, 'received', receivedAt);
    if (decision === 'answer') this.inbox.trigger(ref, inbound);
    else this.inbox.note(ref, inbound);
    await this.o.runtime.store.appendJsonl(this.o.runtime.store.paths(ref).log, {
      type: 'message',
      id: m.id,
      author: { id: m.author.id, name: inbound.authorName },
      at: inbound.at.toISOString(),
      content: inbound.content,
    });
  }

  private async onDelete(m: Message | PartialMessage): Promise<void> {
    const ref = this.refFor(m);
    if (!ref || !this.isActive(ref)) return;
    this.inbox.drop(ref, m.id);
    await this.o.runtime.engine.forgetMessage(ref, m.id);
    await this.o.runtime.store.appendJsonl(this.o.runtime.store.paths(ref).log, { type: 'delete', id: m.id, at: this.o.runtime.clock().toISOString() });
  }

  private async onEdit(m: Message | PartialMessage): Promise<void> {
    const ref = this.refFor(m);
    if (!ref || !this.isActive(ref) || m.content === null) return;
    this.inbox.edit(ref, m.id, m.content);
    await this.o.runtime.store.appendJsonl(this.o.runtime.store.paths(ref).log, {
      type: 'edit',
      id: m.id,
      at: this.o.runtime.clock().toISOString(),
      content: m.content,
    });
  }

  /**
   * The first message in a conversation creates its folder and the Secretary's first-run record,
   * behind the reply rather than before it: the turn needs neither, every write creates what it
   * needs, and the Secretary waits for its own record before an automatic condensation reads it.
   */
  private activate(ref: ChannelRef): void {
    const dir = this.o.runtime.store.paths(ref).convDir;
    if (this.activated.has(dir)) return;
    this.activated.add(dir);
    this.active.add(dir);
    // The folder itself is created by the first turn (ChatEngine), the log by its first append.
    this.o.secretary?.noteChannel?.(this.o.runtime.store.parentRef(ref))?.catch((err) => {
      this.activated.delete(dir);
      this.log.error({ channel: refLabel(ref), err }, 'could not record the first run in this channel; check the data root');
    });
  }

  private isActive(ref: ChannelRef): boolean {
    const dir = this.o.runtime.store.paths(ref).convDir;
    if (this.active.has(dir)) return true;
    // A folder on disk means the bot has worked here before (this or an earlier run).
    if (existsSync(dir)) {
      this.active.add(dir);
      return true;
    }
    return false;
  }

  private toInbound(m: Message, botId: string | undefined): InboundMessage {
    let content = m.content ?? '';
    if (botId) content = content.replace(new RegExp(`<@!?${botId}>`, 'g'), '@Minutes').trim();
    const files = [...m.attachments.values()].map((a) => a.name).filter(Boolean);
    if (files.length) content = `${content}${content ? '\n' : ''}(attached: ${files.join(', ')})`;
    if (!content.trim()) content = '(an empty message)';
    const authorName = m.member?.displayName ?? m.author.globalName ?? m.author.username;
    return { id: m.id, authorName, content, at: m.createdAt };
  }

  private async answer(batch: Pending): Promise<void> {
    const { runtime, client } = this.o;
    const ref = batch.ref;
    const channelId = ref.kind === 'discord' ? (ref.threadId ?? ref.channelId) : null;
    if (!channelId) return;
    // From the cache when it can: each await before the model call waits behind a burst's events.
    const channel = client.channels.cache.get(channelId) ?? (await client.channels.fetch(channelId).catch(() => null));
    if (!channel || !channel.isTextBased() || !('send' in channel)) return;
    if (!channel.isDMBased()) {
      const missing = missingPermissions(botPermissionsIn(channel as GuildBasedChannel & TextBasedChannel), channel.isThread());
      if (missing.length && !(await this.reportMissing(channel as GuildBasedChannel & TextBasedChannel, ref, missing))) return;
    }
    const stopTyping = this.keepTyping(channel, ref);
    let text: string;
    try {
      const trace = this.o.trace;
      const reply = await runtime.engine.respond(ref, batch.messages, {
        trace: trace ? (stage) => batch.messages.forEach((m) => trace(m.id, stage, performance.now())) : undefined,
      });
      text = reply.text;
    } catch (err) {
      text = this.failureMessage(err, ref);
    } finally {
      stopTyping();
    }
    const parts = splitReply(text);
    try {
      for (let i = 0; i < parts.length; i++) {
        if (i === 0) batch.messages.forEach((m) => this.o.trace?.(m.id, 'send-issued', performance.now()));
        await channel.send({
          content: parts[i],
          allowedMentions: NO_PINGS,
          ...(i === 0 && batch.replyTo ? { reply: { messageReference: batch.replyTo, failIfNotExists: false } } : {}),
        });
      }
      batch.messages.forEach((m) => this.o.trace?.(m.id, 'send-done', performance.now()));
    } catch (err) {
      this.reportSendFailure(err, ref);
    }
  }

  private failureMessage(err: unknown, ref: ChannelRef): string {
    if (err instanceof ModelError) {
      this.log.warn({ channel: refLabel(ref), kind: err.kind, err }, 'model call failed; told the channel');
      return err.userMessage();
    }
    this.log.error({ channel: refLabel(ref), err }, 'turn failed');
    return 'Something went wrong on my side while answering; the operator can find the details in the log.';
  }

  private keepTyping(channel: TextBasedChannel, ref: ChannelRef): () => void {
    const send = () => {
      if ('sendTyping' in channel) channel.sendTyping().catch((err) => this.reportSendFailure(err, ref));
    };
    let renew: NodeJS.Timeout | undefined;
    const first = setTimeout(() => {
      send();
      renew = setInterval(send, TYPING_RENEW_MS);
      renew.unref();
    }, this.o.typingDelayMs ?? TYPING_DELAY_MS);
    first.unref();
    return () => {
      clearTimeout(first);
      if (renew) clearInterval(renew);
    };
  }

  /**
   * A permission the bot lacks here is reported once per channel, in the log and, when the bot
   * can still post, in the channel; false when it cannot answer at all.
   */
  private async reportMissing(channel: GuildBasedChannel & TextBasedChannel, ref: ChannelRef, missing: string[]): Promise<boolean> {
    const inThread = channel.isThread();
    const speak = canSpeak(missing, inThread);
    const label = refLabel(ref);
    if (!this.reportedPermission.has(label)) {
      this.reportedPermission.add(label);
      this.log.error({ channel: label, missing }, 'missing Discord permissions in this channel; grant them in the channel settings');
      if (speak && 'send' in channel) {
        await channel
          .send({
            content: `I am missing these permissions here: ${missing.join(', ')}. An admin can grant them in this channel's settings.`,
            allowedMentions: NO_PINGS,
          })
          .catch((err) => this.log.warn({ err, channel: label }, 'could not say which permissions are missing'));
      }
    }
    return speak;
  }

  /** A missing permission is reported once per channel, and the bot keeps serving the others. */
  private reportSendFailure(err: unknown, ref: ChannelRef): void {
    const label = refLabel(ref);
    if (err instanceof DiscordAPIError && PERMISSION_CODES.has(Number(err.code))) {
      if (this.reportedPermission.has(label)) return;
      this.reportedPermission.add(label);
      this.log.error(
        { channel: label, code: err.code },
        'missing Discord permission in this channel (needs View Channel, Send Messages, Read Message History, Send Messages in Threads); grant it in the channel settings',
      );
      return;
    }
    this.log.warn({ channel: label, err }, 'could not send to Discord');
  }
}
