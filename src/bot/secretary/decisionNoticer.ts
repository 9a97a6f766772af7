import { Client, Message } from 'discord.js';
import { z } from 'zod';
import type { SideTaskDeps } from '../../llm/sideTask';
import { judgeDiscussion, Observed, WINDOW, worthAsking } from '../../condense/observers/notice';
import type { ChannelRef } from '../../memory/paths';
import { NO_PINGS } from '../discord/client';
import { InFlight } from '../intake/inFlight';
import { botMayPost } from '../discord/permissions';

/**
 * Notices, off the reply path, when a discussion reaches a decision nobody condensed, and offers
 * once to condense it (the 📝 hint). Each thread is judged at most once, ever (recorded in the
 * channel's `.minutes/noticed.json` before the model is asked); in a channel, a judged stretch of
 * discussion is forgotten and the next needs as many new messages. Nothing is asked where the bot
 * may not post, and `discord.offerCondense: false` turns it off.
 */
const NoticedState = z.looseObject({
  version: z.literal(1),
  /** Thread id → when it was judged, and whether an offer was posted. */
  threads: z.record(z.string(), z.looseObject({ at: z.string(), offered: z.boolean() })),
  /** Channel discussions offered, newest last (bounded). */
  offers: z.array(z.looseObject({ at: z.string(), firstMessageId: z.string() })),
});
type NoticedState = z.infer<typeof NoticedState>;

/** Conversations whose recent messages are kept in memory; the least recent are dropped. */
const MAX_CONVERSATIONS = 500;
const MAX_OFFERS_KEPT = 200;

export class DecisionNoticer {
  private readonly windows = new Map<string, Observed[]>();
  private readonly busy = new Set<string>();
  private readonly events: InFlight;

  constructor(
    private readonly o: {
      client: Client;
      /** `discord.offerCondense`: false turns the noticer off. */
      offerCondense: boolean;
      /** The model call that judges a discussion, the store its record goes to, and the log. */
      deps: SideTaskDeps;
    },
  ) {
    this.events = new InFlight((err, event) => o.deps.logger.error({ err, event }, 'decision noticer failed'));
  }

  async stop(): Promise<void> {
    await this.events.close();
  }

  /** A person's message in a place the bot works; returns at once. */
  observe(m: Message, ref: ChannelRef): void {
    // System messages ("alice started a thread") are not discussion.
    if (!this.o.offerCondense || m.author.bot || m.system || !m.content.trim()) return;
    const key = ref.kind === 'discord' ? (ref.threadId ?? ref.channelId) : ref.name;
    const w = this.windows.get(key) ?? [];
    this.windows.delete(key); // re-inserted last: the map's order is least recent first
    w.push({ id: m.id, authorId: m.author.id, authorName: m.member?.displayName ?? m.author.username, content: m.content, at: m.createdTimestamp });
    if (w.length > WINDOW) w.splice(0, w.length - WINDOW);
    this.windows.set(key, w);
    if (this.windows.size > MAX_CONVERSATIONS) this.windows.delete(this.windows.keys().next().value as string);
    if (this.busy.has(key) || !worthAsking(w)) return;
    this.busy.add(key);
    this.events.run('notice', () => this.judge(key, ref, m).finally(() => this.busy.delete(key)));
  }

  private async judge(key: string, ref: ChannelRef, m: Message): Promise<void> {
    const { deps } = this.o;
    const { store } = deps;
    const window = this.windows.get(key) ?? [];
    if (!botMayPost(this.o.client, m)) return;
    const parent = store.parentRef(ref);
    const file = store.paths(parent).noticed;
    const state: NoticedState = (await store.readState(file, NoticedState)) ?? { version: 1, threads: {}, offers: [] };
    const threadId = ref.kind === 'discord' ? ref.threadId : undefined;
    if (threadId && state.threads[threadId]) return;
    const at = deps.clock().toISOString();
    // Recorded before asking: a crash or a restart never makes the same thread cost a second call.
    if (threadId) {
      state.threads[threadId] = { at, offered: false };
      await store.writeState(parent, file, state);
    }
    this.windows.delete(key);
    const verdict = await judgeDiscussion(deps, ref, window);
    if (!verdict.decided || !verdict.decision) return;
    const first = window[0];
    const how = threadId
      ? 'react 📝 here or run /condense (/resolve also archives the thread)'
      : `run /condense, or react 📝 to the discussion's first message: https://discord.com/channels/${m.guildId}/${m.channelId}/${first.id}`;
    const ch = m.channel;
    if (!ch.isSendable()) return;
    await ch.send({
      content: `📝 This looks decided: “${clean(verdict.decision)}”. To file it in the channel's decision log, ${how}.`,
      allowedMentions: NO_PINGS,
    });
    if (threadId) state.threads[threadId] = { at, offered: true };
    else state.offers = [...state.offers, { at, firstMessageId: first.id }].slice(-MAX_OFFERS_KEPT);
    await store.writeState(parent, file, state);
  }
}

/** The model's sentence as plain text: no mentions, no markup that escapes the quotes. */
function clean(text: string): string {
  return text
    .replace(/<[@#][!&]?\d+>/g, '')
    .replace(/@(everyone|here)\b/g, '$1')
    .replace(/[`*_~|]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
