import { DiscordAPIError, GuildBasedChannel, Message, RESTJSONErrorCodes, TextBasedChannel } from 'discord.js';
import type { InboundMessage } from '../../chat/conversation';
import type { TurnOptions } from '../../chat/engine';
import type { Probes } from '../../app/probes';
import type { Logger } from '../../log/logger';
import { ModelError } from '../../llm/errors';
import type { ChannelRef } from '../../memory/paths';
import { refLabel } from '../../memory/paths';
import { BotActivity, TokenBucket } from './activity';
import { NO_PINGS } from '../discord/client';
import type { Pending } from './inbox';
import { botPermissionsIn, canSpeak, missingPermissions } from '../discord/permissions';
import { splitReply } from '../discord/split';

/** Discord shows "typing" for about 10 s; renew a little before it lapses. */
const TYPING_RENEW_MS = 8_000;
/**
 * Typing starts only when the model takes longer than this to answer, counted from when the
 * model request leaves (not from when the turn begins: on a busy event loop a turn spends that
 * long before the model is even asked, and its typing call would queue ahead of the replies). A
 * quick answer needs no indicator, and each typing call spends one of discord.js's 50 REST
 * requests a second.
 */
export const TYPING_DELAY_MS = 400;
/** A typing call skipped (busy or over budget) is tried again this much later, not at the next renewal. */
const TYPING_RETRY_MS = 1_000;
/**
 * Typing is skipped while this many of this process's sends and typing calls are in flight. A
 * quiet bot has at most one or two (a reply and its indicator); three or more means several
 * channels are answering at once, so discord.js is queueing requests and a typing call would
 * wait ahead of a reply. At Discord's 100-300 ms per call, three in flight is already 10-30 of the
 * 50 requests a second, and in a burst the replies themselves show the bot is working.
 */
export const TYPING_BUSY_IN_FLIGHT = 3;
/** Typing calls per process, whatever the number of channels: a burst of 3, then 2 a second. */
export const TYPING_BURST = 3;
export const TYPING_PER_SECOND = 2;
/** Discord error codes for a missing permission or access in a channel. */
const PERMISSION_CODES = new Set<number>([RESTJSONErrorCodes.MissingAccess, RESTJSONErrorCodes.MissingPermissions]);

/** What became of a batch: its reply reached Discord, the bot may not post there, or a send failed. */
export type AnswerOutcome = 'sent' | 'unsendable' | 'failed';

function isPermissionError(err: unknown): err is DiscordAPIError {
  return err instanceof DiscordAPIError && PERMISSION_CODES.has(Number(err.code));
}

/** The channel a triggering message arrived in: the reply goes back through this same object. */
export type ReplyChannel = Message['channel'];

export interface ReplySenderOptions {
  /** One turn of the chat pipeline (ChatEngine.respond); it calls `onModelRequest` when the model is asked. */
  respond(ref: ChannelRef, messages: InboundMessage[], opts: Pick<TurnOptions, 'onModelRequest'>): Promise<{ text: string }>;
  /** This process's answers and REST calls in flight, shared with the Secretary's sweep. */
  activity: BotActivity;
  logger: Logger;
  trace?: Probes['trace'];
  /** Wait before showing "typing" (default TYPING_DELAY_MS). */
  typingDelayMs?: number;
  /** Small lines to put under the reply to these messages (drift notes found before it went). */
  footnotes?: (messageIds: string[]) => string[];
}

/**
 * The sending half of the bot: for a batch the inbox hands over, it checks the bot may speak in
 * the channel, shows typing while the turn runs, and sends the reply in parts, never pinging. A
 * permission the bot lacks is reported once per channel, whether a check before the turn or
 * Discord's answer to a send found it.
 */
export class ReplySender {
  private readonly reportedPermission = new Set<string>();
  private readonly typingBudget = new TokenBucket({ burst: TYPING_BURST, perSecond: TYPING_PER_SECOND });

  constructor(private readonly o: ReplySenderOptions) {}

  /** What became of the batch: its reply reached Discord, the bot may not post there, or a send failed (tried again after a restart). */
  async answer(batch: Pending<ReplyChannel>): Promise<AnswerOutcome> {
    const done = this.o.activity.answering();
    try {
      return await this.answerBatch(batch);
    } finally {
      done();
    }
  }

  private async answerBatch(batch: Pending<ReplyChannel>): Promise<AnswerOutcome> {
    const { ref, channel } = batch;
    if (!channel || !('send' in channel)) return 'unsendable';
    if (!channel.isDMBased()) {
      const missing = missingPermissions(botPermissionsIn(channel as GuildBasedChannel & TextBasedChannel), channel.isThread());
      if (missing.length && !(await this.reportMissing(channel as GuildBasedChannel & TextBasedChannel, ref, missing))) return 'unsendable';
    }
    const typing = this.keepTyping(channel, ref);
    let text: string;
    try {
      text = (await this.o.respond(ref, batch.messages, { onModelRequest: typing.start })).text;
    } catch (err) {
      text = this.failureMessage(err, ref);
    } finally {
      typing.stop();
    }
    const notes = this.o.footnotes?.(batch.messages.map((m) => m.id)) ?? [];
    if (notes.length) text = `${text}\n${notes.join('\n')}`;
    const trace = this.o.trace;
    const parts = splitReply(text);
    try {
      for (let i = 0; i < parts.length; i++) {
        if (i === 0 && trace) batch.messages.forEach((m) => trace(m.id, 'send-issued', performance.now()));
        await this.o.activity.restCall<unknown>(() =>
          channel.send({
            content: parts[i],
            allowedMentions: NO_PINGS,
            ...(i === 0 && batch.replyTo ? { reply: { messageReference: batch.replyTo, failIfNotExists: false } } : {}),
          }),
        );
      }
      if (trace) batch.messages.forEach((m) => trace(m.id, 'send-done', performance.now()));
      return 'sent';
    } catch (err) {
      this.reportSendFailure(err, ref);
      return isPermissionError(err) ? 'unsendable' : 'failed';
    }
  }

  private get log(): Logger {
    return this.o.logger;
  }

  private failureMessage(err: unknown, ref: ChannelRef): string {
    if (err instanceof ModelError) {
      this.log.warn({ channel: refLabel(ref), kind: err.kind, err }, 'model call failed; told the channel');
      return err.userMessage();
    }
    this.log.error({ channel: refLabel(ref), err }, 'turn failed');
    return 'Something went wrong on my side while answering; the operator can find the details in the log.';
  }

  /**
   * "Typing" for one answer: `start` (when the model request leaves) arms it, `stop` ends it. It
   * is optional, so it gives way to replies: skipped while the REST path is busy or the
   * process's typing budget is spent, and tried again a moment later.
   */
  private keepTyping(channel: TextBasedChannel, ref: ChannelRef): { start(): void; stop(): void } {
    const activity = this.o.activity;
    const send = (): boolean => {
      if (!('sendTyping' in channel)) return true;
      if (activity.restInFlight >= TYPING_BUSY_IN_FLIGHT || !this.typingBudget.take()) return false;
      void activity.restCall(() => channel.sendTyping()).catch((err) => this.reportSendFailure(err, ref));
      return true;
    };
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const arm = (ms: number) => {
      timer = setTimeout(() => arm(send() ? TYPING_RENEW_MS : TYPING_RETRY_MS), ms);
      timer.unref();
    };
    return {
      start: () => {
        // Once per answer: a retry after the provider said the context was too long asks again.
        if (!stopped && !timer) arm(this.o.typingDelayMs ?? TYPING_DELAY_MS);
      },
      stop: () => {
        stopped = true;
        clearTimeout(timer);
      },
    };
  }

  /** True the first time a channel's missing permission is seen: it is reported once per channel. */
  private firstReport(label: string): boolean {
    if (this.reportedPermission.has(label)) return false;
    this.reportedPermission.add(label);
    return true;
  }

  /**
   * A permission the bot lacks here, found before the turn: logged and, when the bot can still
   * post, said in the channel; false when it cannot answer at all.
   */
  private async reportMissing(channel: GuildBasedChannel & TextBasedChannel, ref: ChannelRef, missing: string[]): Promise<boolean> {
    const speak = canSpeak(missing, channel.isThread());
    const label = refLabel(ref);
    if (this.firstReport(label)) {
      this.log.error({ channel: label, missing }, 'missing Discord permissions in this channel; grant them in the channel settings');
      if (speak && 'send' in channel) {
        await this.o.activity
          .restCall<unknown>(() =>
            channel.send({
              content: `I am missing these permissions here: ${missing.join(', ')}. An admin can grant them in this channel's settings.`,
              allowedMentions: NO_PINGS,
            }),
          )
          .catch((err) => this.log.warn({ err, channel: label }, 'could not say which permissions are missing'));
      }
    }
    return speak;
  }

  /** Discord refused a send or typing call; a missing permission is logged once, and the bot serves the other channels. */
  private reportSendFailure(err: unknown, ref: ChannelRef): void {
    const label = refLabel(ref);
    if (isPermissionError(err)) {
      if (!this.firstReport(label)) return;
      this.log.error(
        { channel: label, code: err.code },
        'missing Discord permission in this channel (needs View Channel, Send Messages, Read Message History, Send Messages in Threads); grant it in the channel settings',
      );
      return;
    }
    this.log.warn({ channel: label, err }, 'could not send to Discord');
  }
}
