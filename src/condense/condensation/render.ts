import { FrontMatterError, frontMatterOrError, writeFrontMatter } from '../../memory/frontMatter';
import { hiddenCondensationMark } from '../../shared/markers';
import { MARKER_PREFIX } from './transcript';
import type { CondensationDraft, CondensationFacts } from './types';

/** Discord's message limit. */
export const DISCORD_MAX = 2000;

/** A replaced decision as shown on the Supersedes line. */
export interface SupersededRef {
  id: string;
  date: string;
  text: string;
}

/** An open question this condensation answered, with its words (the draft names only its id). */
export interface AnsweredRef {
  id: string;
  text: string;
  answer: string;
}

export interface RenderInput {
  draft: CondensationDraft;
  facts: CondensationFacts;
  supersedes: SupersededRef[];
  answered?: AnsweredRef[];
}

/** Per-field character caps, used only to fit the Discord post. */
interface Caps {
  context?: number;
  decision?: number;
  rationale?: number;
  actions?: number;
  supersedes?: number;
  questions?: number;
  answers?: number;
  playbooks?: number;
}

const oneLine = (s: string) => s.replace(/\s*[\r\n]+\s*/g, ' ').trim();

function clip(s: string, max: number | undefined): string {
  if (max === undefined || s.length <= max) return s;
  return `${s.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

export function decisionLine(decision: string): string {
  return decision === 'none' ? 'none (no conclusion reached)' : decision;
}

/** The condensation in the exact format of the spec (§3); the file body and the post share it. */
export function renderCondensation(inp: RenderInput, caps: Caps = {}): string {
  const { draft, facts } = inp;
  const where = `#${oneLine(facts.channelName)}${facts.threadName ? ` › ${oneLine(facts.threadName)}` : ''}`;
  const actions = draft.actionItems.length ? draft.actionItems.map(oneLine).join('; ') : 'none';
  const sup = inp.supersedes.length ? inp.supersedes.map((s) => `[${s.date}] ${oneLine(s.text)}`).join('; ') : 'none';
  return [
    `## 📝 Condensation: ${oneLine(draft.topic)}`,
    `**Date:** ${facts.date}`,
    `**Channel:** ${where}`,
    `**Participants:** ${facts.participants.join(', ')}`,
    `**Context:** ${clip(oneLine(draft.context) || '—', caps.context)}`,
    `**Decision:** ${clip(oneLine(decisionLine(draft.decision)), caps.decision)}`,
    `**Rationale:** ${clip(oneLine(draft.rationale) || '—', caps.rationale)}`,
    `**Action items:** ${clip(actions, caps.actions)}`,
    ...knowledgeLines(inp, caps),
    `**Supersedes:** ${clip(sup, caps.supersedes)}`,
  ].join('\n');
}

/** Open questions, answers and playbooks: a line each, only when the condensation has them (older ones render as they did). */
function knowledgeLines(inp: RenderInput, caps: Caps): string[] {
  const { draft } = inp;
  const out: string[] = [];
  if (draft.openQuestions?.length) out.push(`**Open questions:** ${clip(draft.openQuestions.map(oneLine).join('; '), caps.questions)}`);
  if (inp.answered?.length) {
    out.push(`**Answered:** ${clip(inp.answered.map((a) => `${a.id} “${oneLine(a.text)}” → ${oneLine(a.answer)}`).join('; '), caps.answers)}`);
  }
  if (draft.playbooks?.length) {
    const pbs = draft.playbooks.map((p) => `${oneLine(p.name)}: ${p.steps.map((st, i) => `${i + 1}) ${oneLine(st)}`).join(' ')}`);
    out.push(`**Playbooks:** ${clip(pbs.join('; '), caps.playbooks)}`);
  }
  return out;
}

export function markerFor(key: string): string {
  return `${MARKER_PREFIX}${key.slice(0, 12)}`;
}

/**
 * The Discord post: the condensation, under 2,000 characters, with the ledger key hidden at the end
 * of its heading (zero-width characters: a resumed run finds its post by it, people see nothing; it
 * sits mid-text, where nothing trims it). The fields people skim (participants, date, decision)
 * stay; rationale and action items are clipped first. The file always keeps the full text.
 */
export function renderPost(inp: RenderInput, key: string, max = DISCORD_MAX): string {
  const marker = hiddenCondensationMark(key.slice(0, 12));
  const fits = (s: string) => s.length + marker.length <= max;
  let caps: Caps = {};
  let body = renderCondensation(inp, caps);
  // Shrink one field at a time, least important first, until it fits.
  const order: (keyof Caps)[] = ['rationale', 'playbooks', 'answers', 'questions', 'actions', 'supersedes', 'context', 'decision'];
  for (const field of order) {
    if (fits(body)) break;
    const over = body.length + marker.length - max;
    const full = renderCondensation(inp, { ...caps, [field]: 0 }).length;
    const current = body.length - full; // characters this field now takes, roughly
    caps = { ...caps, [field]: Math.max(40, current - over) };
    body = renderCondensation(inp, caps);
  }
  if (!fits(body)) body = body.slice(0, max - marker.length - 1) + '…';
  const eol = body.indexOf('\n');
  return eol < 0 ? body + marker : body.slice(0, eol) + marker + body.slice(eol);
}

export function slugify(topic: string): string {
  const s = topic
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/g, '');
  return s || 'condensation';
}

export interface FileMeta {
  date: string;
  topic: string;
  guild?: string;
  channel: string;
  channelRef: string;
  thread?: string;
  threadId?: string;
  participants: string[];
  firstMessageId: string;
  lastMessageId: string;
  messageCount: number;
  decisionId: string;
  supersedes: string[];
  supersedesFiles: string[];
  ledgerKey: string;
  postMessageId?: string;
  postUrl?: string;
  link?: string;
  trigger: 'explicit' | 'auto';
}

/** The condensation file: YAML frontmatter (memory/frontMatter.ts) (names, ids, range, key) and the body. */
export function renderFile(meta: FileMeta, body: string): string {
  const data: Record<string, unknown> = {
    date: meta.date,
    topic: meta.topic,
    guild: meta.guild,
    channel: meta.channel,
    channel_ref: meta.channelRef,
    thread: meta.thread,
    thread_id: meta.threadId,
    participants: meta.participants,
    first_message_id: meta.firstMessageId,
    last_message_id: meta.lastMessageId,
    message_count: meta.messageCount,
    decision_id: meta.decisionId,
    supersedes: meta.supersedes,
    supersedes_files: meta.supersedesFiles,
    ledger_key: meta.ledgerKey,
    post_message_id: meta.postMessageId,
    post_url: meta.postUrl,
    link: meta.link,
    trigger: meta.trigger,
  };
  for (const k of Object.keys(data)) if (data[k] === undefined) delete data[k];
  return writeFrontMatter(`${body}\n`, data);
}

/** A condensation's fields; null when its front matter is malformed (frontMatterOrError says why). */
export function readFrontmatter(text: string): Record<string, unknown> | null {
  const r = frontMatterOrError(text, 'a condensation');
  return r instanceof FrontMatterError ? null : r.data;
}

/**
 * Adds `superseded_by:` to a condensation's frontmatter: the only edit ever made to a filed
 * condensation. Done as a one-line insertion so the rest of the file stays byte for byte.
 */
export function markFileSuperseded(text: string, byFile: string): string {
  const data = readFrontmatter(text);
  if (!data) return text;
  if (data.superseded_by) return text;
  const m = /^---\r?\n[\s\S]*?\r?\n(---)\s*(?:\r?\n|$)/.exec(text);
  if (!m) {
    return `---\nsuperseded_by: ${JSON.stringify(byFile)}\n---\n${text}`;
  }
  const at = m.index + m[0].lastIndexOf('---');
  return `${text.slice(0, at)}superseded_by: ${JSON.stringify(byFile)}\n${text.slice(at)}`;
}
