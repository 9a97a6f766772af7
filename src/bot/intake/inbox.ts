import type { InboundMessage } from '../../chat/conversation';
import type { ChannelRef } from '../../memory/paths';

/**
 * Per conversation: the human messages since the bot's last reply. Noted messages wait as context;
 * a triggering message (a mention, a reply to the bot, an always-on channel) starts a turn that
 * takes everything pending, so a burst becomes one user turn and replies stay in message order.
 */
export interface Pending<C = unknown> {
  ref: ChannelRef;
  /** Where the newest trigger arrived (the transport's channel object): the reply goes there. */
  channel: C | null;
  messages: InboundMessage[];
  /** The message to reply to: the newest trigger. */
  replyTo: string | null;
}

/** Noted messages kept per conversation: enough context for a reply, bounded against floods. */
export const MAX_PENDING = 30;

export class Inbox<C = unknown> {
  private readonly pending = new Map<string, Pending<C>>();
  private readonly busy = new Set<string>();
  private readonly held = new Set<string>();

  /** `onError` is told of a batch whose `work` threw; that conversation's later turns still run. */
  constructor(
    private readonly work: (batch: Pending<C>) => Promise<void>,
    private readonly keyOf: (ref: ChannelRef) => string,
    private readonly onError: (err: unknown) => void,
  ) {}

  note(ref: ChannelRef, m: InboundMessage): void {
    const p = this.slot(ref);
    p.messages.push(m);
    if (p.messages.length > MAX_PENDING) p.messages.splice(0, p.messages.length - MAX_PENDING);
  }

  trigger(ref: ChannelRef, m: InboundMessage, channel: C): void {
    const p = this.slot(ref);
    p.channel = channel;
    p.messages.push(m);
    if (p.messages.length > MAX_PENDING) p.messages.splice(0, p.messages.length - MAX_PENDING);
    p.replyTo = m.id;
    this.start(this.keyOf(ref));
  }

  /** A deleted message never reaches a prompt. */
  drop(ref: ChannelRef, messageId: string): void {
    const p = this.pending.get(this.keyOf(ref));
    if (!p) return;
    p.messages = p.messages.filter((m) => m.id !== messageId);
    if (p.replyTo === messageId) p.replyTo = p.messages.length ? p.messages[p.messages.length - 1].id : null;
  }

  /** An edit before the turn starts is what the model sees, with who may make it forget judged on the new words. */
  edit(ref: ChannelRef, messageId: string, content: string, mayForget: boolean): void {
    const m = this.pending.get(this.keyOf(ref))?.messages.find((x) => x.id === messageId);
    if (!m) return;
    m.content = content;
    m.mayForget = mayForget;
  }

  /**
   * Messages handed in while `fill` runs wait for it to return, then start one turn together: what
   * a catch-up reads back arrives at once, and is answered in one reply, not the first alone.
   */
  gather(ref: ChannelRef, fill: () => void): void {
    const key = this.keyOf(ref);
    this.held.add(key);
    try {
      fill();
    } finally {
      this.held.delete(key);
      this.start(key);
    }
  }

  /** Resolves when no conversation has a turn running or waiting. */
  async idle(): Promise<void> {
    while (this.busy.size) await new Promise((r) => setTimeout(r, 20));
  }

  private slot(ref: ChannelRef): Pending<C> {
    const key = this.keyOf(ref);
    let p = this.pending.get(key);
    if (!p) {
      p = { ref, channel: null, messages: [], replyTo: null };
      this.pending.set(key, p);
    }
    return p;
  }

  /** Drains the conversation's turns in the background; nothing awaits it, so a failure is reported here. */
  private start(key: string): void {
    void this.drain(key).catch(this.onError);
  }

  private async drain(key: string): Promise<void> {
    if (this.busy.has(key) || this.held.has(key)) return;
    this.busy.add(key);
    try {
      for (;;) {
        const p = this.pending.get(key);
        if (!p || p.replyTo === null || !p.messages.length) break;
        this.pending.set(key, { ref: p.ref, channel: p.channel, messages: [], replyTo: null });
        await this.work(p);
      }
    } finally {
      this.busy.delete(key);
    }
  }
}
