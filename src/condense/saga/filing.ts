import { filedCondensations, readCondensationFile, rewriteCondensationFile, writeCondensationFile } from '../../memory/condensationFiles';
import { ChannelRef, refLabel } from '../../memory/paths';
import { ChannelPaths } from '../../memory/layout';
import type { ChannelStore } from '../../memory/store';
import { redactSecrets } from '../../shared/secrets';
import type { ContextData } from '../knowledge/contextData';
import type { LedgerEntry } from './ledgerSchema';
import { markFileSuperseded, readFrontmatter, renderFile, slugify } from '../condensation/render';
import type { CondensationDraft, CondenseTarget } from '../condensation/types';

/**
 * The condensation's step 3: its file, written once (a file carrying this ledger key is this run's
 * earlier work), and the files of the condensations it replaces marked superseded.
 */
export async function fileCondensation(
  store: ChannelStore,
  o: {
    p: ChannelPaths;
    ref: ChannelRef;
    key: string;
    target: CondenseTarget;
    entry: LedgerEntry;
    draft: CondensationDraft;
    body: string;
    supersedes: string[];
    ctx: ContextData;
    posted: { messageId: string; url?: string } | undefined;
  },
): Promise<string> {
  const { p, ref, key, target, entry, draft, body, supersedes, ctx, posted } = o;
  const dir = p.condensations;
  const names = await filedCondensations(dir);
  let name: string | undefined;
  for (const n of names) {
    const fm = readFrontmatter((await readCondensationFile(dir, n)) ?? '');
    if (fm?.ledger_key === key) {
      name = n;
      break;
    }
  }
  const replacedFiles = supersedes.map((id) => ctx.decisions.find((d) => d.id === id)?.file).filter((f): f is string => !!f);
  if (!name) {
    const base = `${entry.facts.date}-${slugify(draft.topic)}`;
    name = `${base}.md`;
    for (let i = 2; names.includes(name); i++) name = `${base}-${i}.md`;
    const text = renderFile(
      {
        date: entry.facts.date,
        topic: draft.topic,
        guild: target.guildId ?? (ref.kind === 'discord' ? ref.guildId : undefined),
        channel: target.channelName,
        channelRef: refLabel(store.parentRef(ref)),
        thread: target.threadName,
        threadId: target.threadId ?? ref.threadId,
        participants: entry.facts.participants,
        firstMessageId: entry.facts.firstMessageId,
        lastMessageId: entry.facts.lastMessageId,
        messageCount: entry.facts.messageCount,
        decisionId: entry.decisionId,
        supersedes,
        supersedesFiles: replacedFiles,
        ledgerKey: key,
        postMessageId: posted?.messageId,
        postUrl: posted?.url,
        link: target.link?.(entry.facts.firstMessageId),
        trigger: entry.trigger,
      },
      body,
    );
    await writeCondensationFile(dir, name, text);
  }
  for (const f of replacedFiles) {
    if (f === name) continue;
    await rewriteCondensationFile(dir, f, (cur) => markFileSuperseded(cur, name as string));
  }
  return name;
}

/** The HISTORY.md block a condensation appends. */
export function historyBody(draft: CondensationDraft, entry: LedgerEntry, fileName: string, marker: string): string {
  const where = `#${entry.conversation.channelName}${entry.conversation.threadName ? ` › ${entry.conversation.threadName}` : ''}`;
  const decided = draft.decision === 'none' ? 'No conclusion was reached.' : `Decided: ${draft.decision}`;
  return [
    `Condensed ${entry.facts.messageCount} messages of ${where} (${entry.facts.participants.join(', ')}). ${decided}`,
    `See condensations/${fileName}.`,
    `<!-- ${marker} -->`,
  ].join('\n');
}

/** Secrets out of every field the model wrote, before anything is posted or filed. */
export function redactDraft(d: CondensationDraft): CondensationDraft {
  const r = (s: string) => redactSecrets(s);
  return {
    ...d,
    topic: r(d.topic),
    context: r(d.context),
    decision: r(d.decision),
    rationale: r(d.rationale),
    actionItems: d.actionItems.map(r),
    constraints: d.constraints.map(r),
    currentState: r(d.currentState),
    ...(d.openQuestions ? { openQuestions: d.openQuestions.map(r) } : {}),
    ...(d.answeredQuestions ? { answeredQuestions: d.answeredQuestions.map((a) => ({ ...a, answer: r(a.answer) })) } : {}),
    ...(d.playbooks ? { playbooks: d.playbooks.map((p) => ({ ...p, name: r(p.name), steps: p.steps.map(r) })) } : {}),
  };
}
