import { listNames, readTextOrNull as readText } from '../../memory/dataFiles';
import { listConversations } from '../../memory/dataRootIndex';
import { FrontMatterError, frontMatterOrError } from '../../memory/frontMatter';
import { channelLayout } from '../../memory/layout';
import path from 'node:path';
import { normalizeForCompare, parseMemory } from '../../memory/entries';
import { ChannelRef, refLabel } from '../../memory/paths';
import { isPrivateThreadFolder } from '../../memory/privateThreads';
import { ChannelStore } from '../../memory/store';
import { MalformedStateError } from '../../memory/storeErrors';
import { ActionItem, staleItems } from '../knowledge/actionItems';
import { OpenQuestion, staleQuestions } from '../knowledge/openQuestions';
import { archiveStaleness, contextStaleness } from '../knowledge/contextStaleness';
import { ContextData, ContextDecision } from '../knowledge/contextData';
import { readContext, writeContextFiles } from '../knowledge/contextFiles';
import { readLedger } from '../saga/ledgerFile';
import { pointSuperseded } from '../knowledge/memoryLink';

/**
 * The files part of the audit (issue 9 §3): CONTEXT.md out of date, and memory or session lines
 * that still state a superseded decision as current. The Discord part (threads with no
 * condensation) is the glue's; it can add its findings to the same report.
 */
export interface StaleLine {
  file: string;
  line: number;
  text: string;
  /** The superseded decision the line restates, and what replaced it. */
  decisionId: string;
  replacedBy: string;
  fixed: boolean;
  /** SESSION.md lines are not the audit's to edit: reported, but they do not fail `audit --fix`. */
  unfixable?: boolean;
}

export interface ChannelAudit {
  channel: string;
  /** Why CONTEXT.md is stale; null when current (or a private thread, which has none). */
  context: string | null;
  contextFixed: boolean;
  /** Condensation files whose decision is not in .minutes/context.json (an interrupted run: retry it). */
  unfolded: string[];
  /** Condensation files whose front matter is not YAML or does not parse: skipped everywhere, never run (one line each). */
  malformed: string[];
  /** Decisions in force whose condensation file is gone (deleted by hand): CONTEXT.md's link to it leads nowhere. */
  missing: { file: string; decisionId: string }[];
  staleLines: StaleLine[];
  /** Action items open longer than the configured age (reported; they do not make the audit fail). */
  staleActions: ActionItem[];
  /** Questions open longer than the same age (reported the same way). */
  staleQuestions: OpenQuestion[];
}

export interface AuditOptions {
  store: ChannelStore;
  ref: ChannelRef;
  fix?: boolean;
  now: Date;
  /** Open action items and open questions older than this many days are listed (config `actions.staleAfterDays`). */
  staleActionDays?: number;
}

/** The default of `actions.staleAfterDays`: two sprints' worth of a typical team's cadence. */
export const DEFAULT_STALE_ACTION_DAYS = 14;

const STOP = new Set([
  'the',
  'and',
  'for',
  'with',
  'that',
  'this',
  'are',
  'was',
  'were',
  'will',
  'use',
  'using',
  'used',
  'our',
  'from',
  'into',
  'its',
  'all',
  'not',
  'but',
  'has',
  'have',
  'now',
  'then',
  'than',
  'decision',
  'decided',
  'constraint',
]);

export function contentTokens(s: string): Set<string> {
  return new Set(
    normalizeForCompare(s)
      .split(' ')
      .filter((t) => t.length >= 3 && !STOP.has(t)),
  );
}

/**
 * A line restates a superseded decision when it shares most of the old decision's words, at least
 * one of the words that set the old decision apart from the new one, and none of the words that
 * set the new one apart (a line naming both is about the change, not a stale claim).
 */
export function restatesSuperseded(line: string, oldText: string, newText: string): boolean {
  const l = contentTokens(line);
  const o = contentTokens(oldText);
  const n = contentTokens(newText);
  if (o.size === 0) return false;
  const common = [...o].filter((t) => l.has(t)).length;
  const oldOnly = [...o].filter((t) => !n.has(t) && l.has(t)).length;
  const newOnly = [...n].filter((t) => !o.has(t) && l.has(t)).length;
  return common >= Math.min(2, o.size) && common / o.size >= 0.5 && oldOnly > 0 && newOnly === 0;
}

async function readContextData(store: ChannelStore, ref: ChannelRef): Promise<ContextData | MalformedStateError> {
  try {
    return await readContext(store, ref);
  } catch (err) {
    if (err instanceof MalformedStateError) return err;
    throw err;
  }
}

/**
 * Condensations filed but not folded into context.json (an interrupted run), found by content: a
 * file whose frontmatter names a ledger key context.json does not know, and a ledger entry that
 * filed a condensation whose decision context.json does not hold (also when the file is gone).
 */
async function unfoldedCondensations(store: ChannelStore, ref: ChannelRef, data: ContextData, malformed: string[]): Promise<string[] | MalformedStateError> {
  const p = store.paths(ref);
  const knownFiles = new Set(data.decisions.map((d) => d.file).filter(Boolean));
  const knownDecisions = new Set(data.decisions.map((d) => d.id));
  const out = new Set<string>();
  // A missing file or folder is the empty case.
  const names = await listNames(p.condensations);
  for (const n of names.filter((x) => x.endsWith('.md'))) {
    const fm = frontMatterOrError((await readText(path.join(p.condensations, n))) ?? '', `condensations/${n}`);
    if (fm instanceof FrontMatterError) malformed.push(fm.message);
    else if (fm.data.ledger_key && !knownFiles.has(n)) out.add(n);
  }
  let ledger;
  try {
    ledger = await readLedger(store, ref);
  } catch (err) {
    if (err instanceof MalformedStateError) return err;
    throw err;
  }
  for (const e of Object.values(ledger.entries)) {
    if (e.steps.filed && !knownDecisions.has(e.decisionId)) out.add(e.steps.filed);
  }
  return [...out].sort();
}

/**
 * What MEMORY.md holds for the decisions in force: their own entries (the decision, its
 * constraints, its action items), by id and by the condensation named as their source. Such a line
 * may name what its decision replaced ("migrate the orders tables off MySQL"): it is the change
 * itself, not a stale claim.
 */
function currentDecisionLines(data: ContextData): { memoryIds: Set<string>; sources: Set<string> } {
  const current = data.decisions.filter((d) => !d.supersededBy);
  const ids = new Set(current.map((d) => d.id));
  const memoryIds = [
    ...current.map((d) => d.memoryId),
    ...data.constraints.filter((c) => ids.has(c.decisionId)).map((c) => c.memoryId),
    ...(data.actions ?? []).filter((i) => ids.has(i.decisionId)).map((i) => i.memoryId),
    ...(data.questions ?? []).filter((q) => ids.has(q.decisionId)).map((q) => q.memoryId),
    // A playbook outlives the decision it came with: its entry is never a stale claim.
    ...(data.playbooks ?? []).map((p) => p.memoryId),
  ];
  return {
    memoryIds: new Set(memoryIds.filter((m): m is string => !!m)),
    sources: new Set(current.filter((d) => d.file).map((d) => `condensation ${d.file}`)),
  };
}

export async function auditChannel(o: AuditOptions): Promise<ChannelAudit> {
  const { store, ref } = o;
  const p = store.paths(ref);
  const report: ChannelAudit = {
    channel: refLabel(ref),
    context: null,
    contextFixed: false,
    unfolded: [],
    malformed: [],
    missing: [],
    staleLines: [],
    staleActions: [],
    staleQuestions: [],
  };
  const data = await readContextData(store, ref);
  // Re-rendering CONTEXT.md from an empty stand-in would drop every decision: report, fix nothing.
  if (data instanceof MalformedStateError) return { ...report, context: data.message };
  report.staleActions = staleItems(data.actions, o.now, o.staleActionDays ?? DEFAULT_STALE_ACTION_DAYS);
  report.staleQuestions = staleQuestions(data.questions, o.now, o.staleActionDays ?? DEFAULT_STALE_ACTION_DAYS);

  const unfolded = await unfoldedCondensations(store, ref, data, report.malformed);
  if (unfolded instanceof MalformedStateError) return { ...report, context: unfolded.message };
  report.unfolded = unfolded;
  // A missing file or folder is the empty case.
  const filed = new Set(await listNames(p.condensations));
  report.missing = data.decisions
    .filter((d) => d.kind === 'decision' && !d.supersededBy && d.file && !filed.has(d.file))
    .map((d) => ({ file: d.file!, decisionId: d.id }));

  if (!ref.privateThread) {
    // By content only: a copy (`cp -r`) or a `touch` changes file times, never what a file says.
    const current = await readText(p.context);
    report.context = contextStaleness(current, data) ?? archiveStaleness(await readText(p.contextArchive), data);
    if (report.context && o.fix) {
      await store.exclusive(p, (tx) => writeContextFiles(tx, data, data));
      report.contextFixed = true;
    }
  }

  const byId = new Map(data.decisions.map((d) => [d.id, d]));
  const superseded = data.decisions.filter((d) => d.kind === 'decision' && d.supersededBy);
  const own = currentDecisionLines(data);
  const check = (file: string, text: string | null): { d: ContextDecision; by: ContextDecision; line: number; text: string; id?: string }[] => {
    const out: { d: ContextDecision; by: ContextDecision; line: number; text: string; id?: string }[] = [];
    if (!text) return out;
    for (const l of parseMemory(text)) {
      if (l.kind !== 'entry' || l.superseded || (l.id && own.memoryIds.has(l.id)) || (l.source && own.sources.has(l.source))) continue;
      for (const d of superseded) {
        const by = byId.get(d.supersededBy as string);
        if (!by) continue;
        if (restatesSuperseded(l.text, d.text, by.kind === 'none' ? '' : by.text)) {
          out.push({ d, by, line: l.index + 1, text: l.text, id: l.id });
          break;
        }
      }
    }
    return out;
  };

  const memFile = p.memory;
  const memHits = check(path.relative(p.channelDir, memFile) || 'MEMORY.md', await readText(memFile));
  for (const h of memHits) {
    let fixed = false;
    if (o.fix && h.by.memoryId) {
      const marked = await pointSuperseded(store, ref, [h.id ? { id: h.id } : { text: h.text }], h.by.memoryId, o.now);
      fixed = marked.length > 0;
    }
    report.staleLines.push({ file: path.relative(p.channelDir, memFile), line: h.line, text: h.text, decisionId: h.d.id, replacedBy: h.by.id, fixed });
  }

  // SESSION.md files are re-rendered by code from the model's notes: report them, never edit them.
  const sessions = [p.session];
  if (!ref.threadId) {
    // A missing file or folder is the empty case. A private thread's notes are its own: its audit
    // reads them, never the channel's (whose report would quote them).
    for (const t of await listNames(p.threads)) {
      const own = channelLayout(p.channelDir, { threadId: t });
      if (!(await isPrivateThreadFolder(own.convDir))) sessions.push(own.session);
    }
  }
  for (const s of sessions) {
    for (const h of check(s, await readText(s))) {
      report.staleLines.push({
        file: path.relative(p.channelDir, s),
        line: h.line,
        text: h.text,
        decisionId: h.d.id,
        replacedBy: h.by.id,
        fixed: false,
        unfixable: true,
      });
    }
  }
  return report;
}

/**
 * Every channel folder under the data root, as its read model lists them (memory/dataRootIndex.ts):
 * `local/<name>` first, then `<guild>/<channel>` and the private threads, which keep their own
 * records (`<guild>/<channel>/threads/<thread>`: memory/privateThreads.ts).
 */
export async function listChannelRefs(root: string): Promise<ChannelRef[]> {
  const all = await listConversations(root, { includePrivate: true });
  return [...all.filter((c) => c.ref.kind === 'local'), ...all.filter((c) => c.ref.kind === 'discord')].map((c) => c.ref);
}

export function auditIsClean(a: ChannelAudit): boolean {
  return !a.context && a.unfolded.length === 0 && a.malformed.length === 0 && a.missing.length === 0 && a.staleLines.length === 0;
}

/** Human-readable lines for one channel's audit. */
export function formatAudit(a: ChannelAudit): string[] {
  const out: string[] = [];
  if (a.context) out.push(`${a.channel}: ${a.context}${a.contextFixed ? ' — re-rendered' : ''}`);
  for (const u of a.unfolded)
    out.push(`${a.channel}: condensations/${u} is not folded into CONTEXT.md (an interrupted condensation; it is retried from the ledger)`);
  for (const m of a.malformed) out.push(`${a.channel}: ${m}`);
  for (const m of a.missing) {
    out.push(
      `${a.channel}: condensations/${m.file} of decision ${m.decisionId} in force is missing (CONTEXT.md links to it) — restore it from a backup or version control (the pinned post has its text), or condense the discussion again`,
    );
  }
  for (const s of a.staleLines) {
    out.push(
      `${a.channel}: ${s.file}:${s.line} still states superseded decision ${s.decisionId} (replaced by ${s.replacedBy}): "${s.text}"${s.fixed ? ' — marked superseded' : ''}` +
        (s.unfixable ? ' — not fixable by the audit: the bot rewrites SESSION.md at its next session refresh, or edit the line by hand' : ''),
    );
  }
  for (const i of a.staleActions) {
    out.push(
      `${a.channel}: action item ${i.id} open since ${i.opened}${i.owner ? ` (${i.owner})` : ''}${i.due ? `, due ${i.due}` : ''}: "${i.text}" — close it with /actions done:${i.id} when done`,
    );
  }
  for (const q of a.staleQuestions) {
    out.push(
      `${a.channel}: question ${q.id} open since ${q.opened}${q.askedBy ? ` (asked by ${q.askedBy})` : ''}: "${q.text}" — answer it with /questions answer:${q.id} text:<answer>, or in a condensed discussion`,
    );
  }
  return out;
}
