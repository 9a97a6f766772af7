import { redactSecrets } from '../shared/secrets';
import type { ChannelStore } from '../memory/store';
import type { ChannelRef } from '../memory/paths';
import { ConversationState, emptyConversation } from '../shared/conversation';

export function conversationFile(store: ChannelStore, ref: ChannelRef): string {
  return store.paths(ref).conversation;
}

export async function loadConversation(store: ChannelStore, ref: ChannelRef): Promise<ConversationState> {
  // The count is read leniently, as it always was: a file without it starts from 0.
  const state = await store.readState(conversationFile(store, ref), ConversationState.partial({ compactedTurns: true }));
  if (!state) return emptyConversation();
  return { ...state, compactedTurns: state.compactedTurns ?? 0 };
}

/**
 * A line a transport writes to a conversation's cold log (log.jsonl): a message seen, edited or
 * deleted, and the messages a reply has settled. The log is the record of work to do: a message
 * logged as `addressed` and never settled is answered after a restart (openMentions.ts).
 */
export type LogRecord =
  | {
      type: 'message';
      id: string;
      author: { id: string; name: string };
      at: string;
      content: string;
      /** It spoke to the bot (a trigger): it is owed a reply. */
      addressed?: boolean;
      /** Whether its author may make the bot forget (judged when it arrived). */
      mayForget?: boolean;
    }
  | { type: 'edit'; id: string; at: string; content: string }
  | { type: 'delete'; id: string; at: string }
  | {
      type: 'answered';
      at: string;
      ids: string[];
      /** `sent`: the reply reached Discord; `seen`: a reply was found in the channel after a restart; `unsendable`: the bot may not post there; `too-old`: missed while down, past the catch-up bound. */
      how: 'sent' | 'seen' | 'unsendable' | 'too-old';
    };

/** A human message as the transport hands it over. */
export interface InboundMessage {
  id: string;
  authorName: string;
  content: string;
  at: Date;
  /**
   * Whether the message spoke to the bot (a mention, a reply, an always-on channel). Only such
   * messages may ask it to remember or forget; context it merely overheard may not. Default true.
   */
  addressed?: boolean;
  /**
   * Whether its author may make the bot forget any entry: an admin (the rule of /memory forget).
   * Unset: no. Anyone may still forget an entry that records them as its author (authorId).
   */
  mayForget?: boolean;
  /** The author's user id, when the transport knows it: recorded in what they ask to remember (chat/forgetting.ts). */
  authorId?: string;
}

/**
 * Every human message since the bot's last reply becomes one user turn. The time is part of the
 * turn text, fixed when the turn is written, so it never changes the cached prefix later.
 */
/**
 * Secrets are redacted here, so they reach neither the model nor the stored conversation. A caller
 * that has the redacted content already (to tell whether anything was kept out) passes it.
 */
export function renderUserPart(m: InboundMessage, redacted = redactSecrets(m.content)): string {
  return `[${m.at.toISOString().slice(0, 16).replace('T', ' ')} UTC] ${m.authorName}: ${redacted}`;
}

/**
 * A message cut to `max` characters, with a marker saying how much was left out (the model sees it).
 * Never splits a surrogate pair. Unchanged when it fits.
 */
export function clipMessage(m: InboundMessage, max: number): InboundMessage {
  if (m.content.length <= max) return m;
  const cut = /[\ud800-\udbff]/.test(m.content[max - 1]) ? max - 1 : max;
  return { ...m, content: `${m.content.slice(0, cut)}\n[… message clipped: ${m.content.length - cut} more characters not read]` };
}

/**
 * Pure: drops a deleted message from the stored turns, so it reaches no later prompt, upkeep or
 * condensation. Returns null when the message is not in the conversation.
 */
export function withoutMessage(state: ConversationState, messageId: string): ConversationState | null {
  let hit = false;
  const turns = state.turns.map((t) => {
    const i = t.ids?.indexOf(messageId) ?? -1;
    if (i < 0 || !t.parts) return t;
    hit = true;
    const ids = t.ids!.filter((_, k) => k !== i);
    const parts = t.parts.filter((_, k) => k !== i);
    return { ...t, ids, parts, content: parts.length ? parts.join('\n') : '(message deleted)' };
  });
  return hit ? { ...state, turns } : null;
}

/**
 * Pure: which of a batch's messages the stored conversation already answered, and those replies.
 * A turn is stored before its reply goes to Discord, so after a crash in between, the restarted
 * bot finds the exchange here and sends that reply, instead of asking the model again (and
 * applying the messages' memory requests a second time).
 */
export function storedReplies(state: ConversationState, messages: InboundMessage[]): { replies: string[]; rest: InboundMessage[] } {
  const wanted = new Set(messages.map((m) => m.id));
  const answered = new Set<string>();
  const replies: string[] = [];
  state.turns.forEach((t, i) => {
    const hit = t.role === 'user' && t.ids?.some((id) => wanted.has(id));
    const reply = state.turns[i + 1];
    if (!hit || reply?.role !== 'assistant') return;
    for (const id of t.ids!) answered.add(id);
    replies.push(reply.content);
  });
  return { replies, rest: answered.size ? messages.filter((m) => !answered.has(m.id)) : messages };
}
