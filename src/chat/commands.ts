import { statOrNull } from '../memory/dataFiles';
import { parseMemory } from '../memory/entries';
import type { RecallItem } from '../recall/types';
import { renderExplanation } from '../recall/explainText';
import type { ChannelRef } from '../memory/paths';
import type { ChannelStore } from '../memory/store';
import { StoreError } from '../memory/storeErrors';
import type { ChatEngine } from './engine';
import { Forgetter, forgetRefused, permittedOps } from './forgetting';
import { emptyConversation } from '../shared/conversation';
import { stripInternalMarkers } from '../shared/markers';
import type { UsageBook } from './usage';
import { appendHistoryBlock } from '../memory/history';

/**
 * The channel commands, shared by console mode and Discord's slash commands: each returns text,
 * and the transport decides how to show it (a block on stdout, an ephemeral reply, a file).
 */
export interface CommandContext {
  store: ChannelStore;
  engine: ChatEngine;
  clock: () => Date;
  /** Who asked, for provenance of explicit forgets and history blocks. */
  actor: string;
  usage: UsageBook;
  /** What /status shows of upkeep (a higher layer: handed in, not imported). */
  upkeep: { lastRuns(ref: ChannelRef): Promise<Record<string, string>> };
}

/**
 * A channel command as data: the bot hands it to wherever the engine runs (its turn worker), and
 * the answer comes back as text.
 */
export type ChannelCommand =
  /** `explain`: also why each line came, or which gate kept recall silent (recall/explanation.ts). */
  | { name: 'recall'; query: string; explain?: boolean }
  | { name: 'memory' }
  /** `who` is required: a forget is judged on who asks (chat/forgetting.ts), never allowed by default. */
  | { name: 'forget'; id: string; who: Forgetter }
  | { name: 'context' }
  | { name: 'new' }
  | { name: 'status' };

/** Runs one channel command for `actor` in a conversation. */
export type ChannelCommandRunner = (ref: ChannelRef, actor: string, command: ChannelCommand) => Promise<string>;

/** The one switch from a command to its function. */
export function runChannelCommand(ctx: Omit<CommandContext, 'actor'>, ref: ChannelRef, actor: string, command: ChannelCommand): Promise<string> {
  const c: CommandContext = { ...ctx, actor };
  switch (command.name) {
    case 'recall':
      return recallCommand(c, ref, command.query, command.explain);
    case 'memory':
      return memoryCommand(c, ref);
    case 'forget':
      return forgetCommand(c, ref, command.id, command.who);
    case 'context':
      return contextCommand(c, ref);
    case 'new':
      return newCommand(c, ref);
    case 'status':
      return statusCommand(c, ref);
  }
}

export async function recallCommand(ctx: CommandContext, ref: ChannelRef, query: string, explain = false): Promise<string> {
  if (!query.trim()) return 'Usage: /recall <text>: shows exactly what would be injected for that text.';
  const { block, result } = await ctx.engine.recallFor(ref, query, { explain });
  // Why, in place of the scores: the same lines with their words and meaning, or the gate that closed.
  if (explain)
    return `${block ? `${block}\n\n` : ''}${result.explain ? renderExplanation(result.explain) : "No explanation: recall could not read this channel's memory files."}`;
  if (block) return `${block}\n\n${recallScores(result.items)}`;
  // Injection abstained; the person searching still gets what memory has on it.
  const matches = await ctx.engine.searchFor(ref, query, SEARCH_MATCHES);
  if (!matches.length) return 'Nothing would be recalled for that text, and no memory line shares a word or a meaning with it.';
  return `Nothing would be injected for that text (it does not reach recall's bar). Best matches in memory:\n${recallScores(matches)}`;
}

/** Matches /recall lists when injection abstains. */
const SEARCH_MATCHES = 5;

/**
 * One line per recalled item with its two scores, so a person can see why it came: by words (the
 * lexical score, 0 when only meaning found it) and by meaning (cosine with the message; "—" when the
 * line has no vector yet or meaning is off).
 */
export function recallScores(items: RecallItem[]): string {
  const lines = items.map((it, i) => {
    const text = it.text.replace(/\s+/g, ' ').trim();
    const meaning = it.semantic === undefined ? '—' : it.semantic.toFixed(2);
    return `${i + 1}. words ${it.lexical.toFixed(2)} · meaning ${meaning} · ${it.file}: ${text.length > 60 ? `${text.slice(0, 59)}…` : text}`;
  });
  return `Scores (words · meaning):\n${lines.join('\n')}`;
}

export async function memoryCommand(ctx: CommandContext, ref: ChannelRef): Promise<string> {
  const text = await ctx.store.read(ctx.store.parentRef(ref), 'MEMORY.md');
  const entries = parseMemory(text ?? '').filter((l) => l.kind === 'entry' && !l.superseded);
  if (!entries.length) return 'MEMORY.md has no entries yet.';
  // A damaged file's control bytes (escape sequences, NUL) are not shown, on Discord or a terminal.
  return entries.map((e) => e.raw.trim().replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')).join('\n');
}

export async function forgetCommand(ctx: CommandContext, ref: ChannelRef, id: string, who: Forgetter): Promise<string> {
  try {
    // Read where the forget applies (a private thread keeps its own MEMORY.md). An entry gone by the
    // time it is applied is reported by the operation itself.
    const memory = (await ctx.store.read(ctx.store.parentRef(ref), 'MEMORY.md')) ?? '';
    if (permittedOps([{ op: 'forget', id: id.trim() }], memory, who).refused.length) return `Nothing forgotten: ${forgetRefused(id.trim())}.`;
    const r = await ctx.store.applyMemoryOps(ref, [{ op: 'forget', id: id.trim(), reason: `forgotten by ${ctx.actor}` }]);
    if (r.forgotten.length) return `Forgot ${id.trim()}: "${r.forgotten[0].text}". It will not be learned again automatically.`;
    return `Nothing forgotten: ${r.skipped[0]?.why ?? 'no such entry'}.`;
  } catch (err) {
    if (err instanceof StoreError) return `Could not forget ${id}: ${err.message}`;
    throw err;
  }
}

export async function contextCommand(ctx: CommandContext, ref: ChannelRef): Promise<string> {
  const text = stripInternalMarkers((await ctx.store.read(ctx.store.parentRef(ref), 'CONTEXT.md')) ?? '');
  return text.trim() ? text.trim() : 'CONTEXT.md does not exist yet: it is written after the first condensation.';
}

export async function newCommand(ctx: CommandContext, ref: ChannelRef): Promise<string> {
  let ended = 0;
  await ctx.engine.replaceConversation(ref, (c) => {
    ended = c.turns.length;
    return { ...emptyConversation(), compactedTurns: c.compactedTurns + c.turns.length };
  });
  if (ended > 0) {
    await appendHistoryBlock(ctx.store, ref, {
      at: ctx.clock(),
      title: 'New conversation',
      body: `${ctx.actor} started a fresh conversation with /new after ${ended / 2} exchanges. SESSION.md was kept.`,
    });
  }
  return ended > 0 ? 'Started a fresh conversation. SESSION.md and memory are kept.' : 'The conversation was already empty. SESSION.md and memory are kept.';
}

export async function statusCommand(ctx: CommandContext, ref: ChannelRef): Promise<string> {
  const usage = await ctx.usage.read(ref);
  const conv = await ctx.engine.conversation(ref);
  const lines: string[] = ['**Usage** (this conversation, since the folder was created)'];
  const models = Object.entries(usage.byModel);
  if (!models.length) lines.push('- no model calls yet');
  for (const [key, u] of models) {
    const hit = u.inputTokens ? Math.round((u.cacheReadTokens / u.inputTokens) * 100) : 0;
    lines.push(
      `- ${key}: ${u.calls} calls, ${u.inputTokens} input tokens (${hit}% read from cache, ${u.cacheWriteTokens} written to cache), ${u.outputTokens} output tokens`,
    );
  }
  lines.push(`- conversation: ${conv.turns.length} turns since the last compaction${conv.summary ? ', with a summary of earlier turns' : ''}`);
  lines.push('', '**Memory files**');
  const p = ctx.store.paths(ref);
  for (const [name, file] of [
    ['CONTEXT.md', p.context],
    ['MEMORY.md', p.memory],
    ['SESSION.md', p.session],
    ['HISTORY.md', p.history],
  ] as const) {
    // Silent on purpose: a missing file or folder is the empty case.
    const st = await statOrNull(file);
    lines.push(`- ${name}: ${st ? `${st.size} bytes, changed ${st.mtime.toISOString().slice(0, 16).replace('T', ' ')} UTC` : 'not created yet'}`);
  }
  lines.push('', '**Upkeep**');
  const runs = Object.entries(await ctx.upkeep.lastRuns(ref));
  if (!runs.length) lines.push('- has not run yet');
  for (const [job, at] of runs) lines.push(`- ${job}: last ran ${at.slice(0, 16).replace('T', ' ')} UTC`);
  return lines.join('\n');
}
