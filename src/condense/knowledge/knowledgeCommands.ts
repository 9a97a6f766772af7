import type { Asker } from '../../chat/commandRegistry';
import type { Logger } from '../../log/logger';
import type { ChannelStore } from '../../memory/store';
import { NAMES } from '../../memory/layout';
import { ContextData } from './contextData';
import { readContext, writeContextFiles } from './contextFiles';
import { answeredMemoryText } from './memoryStep';
import { answerQuestion, formatAnswered, formatQuestion, openQuestions } from './openQuestions';
import { isNamedMember } from './actionItems';
import { ownerOnly } from './actionCommands';
import { byLastChange, currentVersion } from './playbooks';
import type { ChannelRef } from '../../memory/paths';
import { MalformedStateError } from '../../memory/storeErrors';
import { redactSecrets } from '../../shared/secrets';

/**
 * `/questions` lists the channel's open questions (only the asker sees it); `/questions answer:<id>
 * text:<answer>` answers one by hand — the person who asked, by the user id recorded when the
 * condensation named them (never by display name), or an admin. Answering re-renders CONTEXT.md
 * (the question leaves "Open Questions"; hand edits kept as always) and strikes its open loop in
 * MEMORY.md in favour of the answer. `/playbooks` lists the playbooks with their steps. Mirrors
 * `/actions` (actionCommands.ts).
 */
export class KnowledgeCommands {
  constructor(private readonly rt: { store: ChannelStore; logger: Logger; clock: () => Date }) {}

  async questions(ref: ChannelRef, answerId: string | null, text: string | null, asker: Asker): Promise<string> {
    try {
      if (!answerId) return text ? 'Name the question too: /questions answer:<id> text:<answer> (the ids are in /questions).' : await this.list(ref);
      return await this.answer(ref, answerId, text ?? '', asker);
    } catch (err) {
      if (err instanceof MalformedStateError) return `Cannot read this channel's open questions: ${err.message}.`;
      throw err;
    }
  }

  async playbooks(ref: ChannelRef): Promise<string> {
    let data: ContextData;
    try {
      data = await readContext(this.rt.store, ref);
    } catch (err) {
      if (err instanceof MalformedStateError) return `Cannot read this channel's playbooks: ${err.message}.`;
      throw err;
    }
    const all = byLastChange(data.playbooks);
    if (!all.length) return 'No playbooks in this channel yet: the Secretary files one when a condensed discussion agrees on a procedure.';
    const blocks = all.map((p) => {
      const v = currentVersion(p);
      const when = p.versions.length > 1 ? `changed ${v.date}, ${p.versions.length} versions` : `from ${v.date}`;
      return [`**${p.name}** (${when}; ${NAMES.playbooks}/${p.slug}.md)`, ...v.steps.map((s, i) => `${i + 1}. ${s}`)].join('\n');
    });
    return [`Playbooks (${all.length}):`, ...blocks].join('\n\n');
  }

  private async list(ref: ChannelRef): Promise<string> {
    const open = openQuestions((await readContext(this.rt.store, ref)).questions);
    if (!open.length) return 'No open questions in this channel.';
    return [`Open questions (${open.length}); answer one with /questions answer:<id> text:<answer>:`, ...open.map((q) => `- ${formatQuestion(q)}`)].join('\n');
  }

  private async answer(ref: ChannelRef, id: string, text: string, asker: Asker): Promise<string> {
    const { store, clock } = this.rt;
    const p = store.paths(ref);
    const who = asker.name;
    const date = clock().toISOString().slice(0, 10);
    // Memory and CONTEXT.md never keep a secret, whoever types it.
    const answer = redactSecrets(text);
    const outcome = await store.exclusive(p, async (tx) => {
      const prev = await readContext(store, ref);
      const q = (prev.questions ?? []).find((x) => x.id === id.trim());
      if (q && q.status === 'open' && !asker.admin && !(asker.userId !== undefined && isNamedMember(q.askedById, asker.userId))) {
        return { why: ownerOnly(q.askedBy, q.askedById, `answer ${q.id}`, 'who asked') };
      }
      const r = answerQuestion(prev.questions ?? [], { id, answer, who, date });
      if (!r.answered) return { why: r.why };
      const next: ContextData = { ...prev, questions: r.questions };
      // A private thread's context is its own; CONTEXT.md is the parent channel's file.
      if (!ref.privateThread) await writeContextFiles(tx, prev, next);
      await tx.writeState(p.contextData, next);
      return { answered: r.answered };
    });
    if (!outcome.answered) return `Nothing answered: ${outcome.why}.`;
    const q = outcome.answered;
    if (q.memoryId) {
      await store
        .applyMemoryOps(ref, [{ op: 'supersede', id: q.memoryId, text: answeredMemoryText(q), source: `/questions answer by ${who}`, reason: 'answered' }])
        .catch((err) => this.rt.logger.warn({ err, id: q.id }, 'could not mark the question answered in MEMORY.md'));
    }
    return `Answered ${formatAnswered(q)}`;
  }
}
