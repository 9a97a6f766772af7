import { archiveNeeded, CONTEXT_SHOWN, renderArchiveBody, renderContextBody } from '../../src/condense/knowledge/contextRender';
import { answerQuestion, closedNow, openQuestions, questionIdFor, staleQuestions } from '../../src/condense/knowledge/openQuestions';
import { changedPlaybooks, playbookSlug } from '../../src/condense/knowledge/playbooks';
import { draftMaker, EMPTY_CONTEXT, folder } from './helpers';

/** Open questions and playbooks in context.json and CONTEXT.md: opened, answered, dropped, changed, bounded. */
const EMPTY = EMPTY_CONTEXT;
const draft = draftMaker({ topic: 'Release process', decision: 'releases go out on Tuesdays' });
const fold = folder(draft);
const section = (md: string, heading: string) => new RegExp(`## ${heading}\\n\\n([\\s\\S]*?)(?=\\n## |\\n?$)`).exec(md)?.[1] ?? null;

describe('open questions and playbooks in the channel context', () => {
  const first = fold(EMPTY, {
    file: '2026-11-10-release-process.md',
    draft: draft({
      openQuestions: ['al: who signs off a hotfix?', 'which region hosts the replica?'],
      playbooks: [{ name: 'Cut a release', steps: ['freeze the branch', 'run the checklist', 'tag it'] }],
    }),
  });
  const q1 = questionIdFor('d-1', 'who signs off a hotfix?');
  const q2 = questionIdFor('d-1', 'which region hosts the replica?');

  it('a condensation with open questions and a playbook lists both in CONTEXT.md', () => {
    expect(first.questions).toEqual([
      {
        id: q1,
        text: 'who signs off a hotfix?',
        askedBy: 'al',
        decisionId: 'd-1',
        file: '2026-11-10-release-process.md',
        opened: '2026-11-10',
        status: 'open',
      },
      { id: q2, text: 'which region hosts the replica?', decisionId: 'd-1', file: '2026-11-10-release-process.md', opened: '2026-11-10', status: 'open' },
    ]);
    const md = renderContextBody(first);
    expect(section(md, 'Open Questions')).toBe(
      `- \`${q1}\` who signs off a hotfix? — al _(from 2026-11-10)_\n- \`${q2}\` which region hosts the replica? _(from 2026-11-10)_\n`,
    );
    expect(section(md, 'Playbooks')).toBe(
      '- **Cut a release:** freeze the branch → run the checklist → tag it ([playbook](playbooks/cut-a-release.md)) _(from 2026-11-10)_\n',
    );
    // Between the action items' place and the superseded list.
    expect(md.indexOf('## Active Constraints')).toBeLessThan(md.indexOf('## Open Questions'));
    expect(md.indexOf('## Playbooks')).toBeLessThan(md.indexOf('## Superseded Decisions'));
    // Folding the same condensation again (a resumed run) changes nothing.
    expect(
      fold(first, {
        file: '2026-11-10-release-process.md',
        draft: draft({
          openQuestions: ['al: who signs off a hotfix?'],
          playbooks: first.playbooks!.map((p) => ({ name: p.name, steps: p.versions[0].steps })),
        }),
      }),
    ).toEqual(first);
  });

  it('a later one answers a question, changes the playbook and, replacing the decision, drops its other question', () => {
    const second = fold(first, {
      decisionId: 'd-2',
      ledgerKey: 'k2',
      date: '2026-11-17',
      file: '2026-11-17-release-process.md',
      supersedes: ['d-1'],
      draft: draft({
        decision: 'releases go out on Wednesdays',
        answeredQuestions: [{ id: q1, answer: 'the on-call lead signs off hotfixes.' }],
        playbooks: [{ name: 'cut a release', steps: ['freeze the branch', 'run the checklist', 'tag it', 'announce it'] }],
      }),
    });
    expect(closedNow(first, second, 'answered')).toEqual([
      expect.objectContaining({
        id: q1,
        status: 'answered',
        answer: 'the on-call lead signs off hotfixes.',
        closed: '2026-11-17',
        closedBy: 'condensation d-2',
      }),
    ]);
    expect(closedNow(first, second, 'dropped')).toEqual([expect.objectContaining({ id: q2, closedBy: 'its decision was replaced by d-2' })]);
    expect(openQuestions(second.questions)).toEqual([]);
    const [changed] = changedPlaybooks(first, second);
    expect(changed.previous?.steps).toEqual(['freeze the branch', 'run the checklist', 'tag it']);
    expect(changed.playbook.versions.map((v) => v.decisionId)).toEqual(['d-1', 'd-2']);
    const md = renderContextBody(second);
    expect(section(md, 'Open Questions')).toBe('_None open._\n');
    expect(section(md, 'Playbooks')).toBe(
      '- **cut a release:** freeze the branch → run the checklist → tag it → announce it ([playbook](playbooks/cut-a-release.md)) _(changed 2026-11-17)_\n',
    );
    // The same steps again add no version.
    const third = fold(second, {
      decisionId: 'd-3',
      ledgerKey: 'k3',
      date: '2026-11-20',
      draft: draft({ playbooks: [{ name: 'Cut a release', steps: ['freeze the branch', 'run the checklist', 'tag it', 'announce it'] }] }),
    });
    expect(changedPlaybooks(second, third)).toEqual([]);
  });

  it('an answer to a question that is no longer open, or a question already open in the same words, changes nothing', () => {
    const answered = answerQuestion(first.questions!, { id: q1, answer: 'the lead', who: 'bo', date: '2026-11-11' });
    const data = { ...first, questions: answered.questions };
    const again = fold(data, {
      decisionId: 'd-2',
      ledgerKey: 'k2',
      draft: draft({ openQuestions: ['Which region hosts the replica?'], answeredQuestions: [{ id: q1, answer: 'someone else' }] }),
    });
    expect(again.questions).toEqual(data.questions);
  });

  it('a channel that never had either renders as before, and each list is bounded like the others', () => {
    expect(renderContextBody(fold(EMPTY))).not.toMatch(/Open Questions|Playbooks/);
    expect(renderArchiveBody(fold(EMPTY))).not.toMatch(/Open Questions|Playbooks/);
    let data = EMPTY;
    for (let i = 0; i < 25; i++) {
      const date = `2026-10-${String(i + 1).padStart(2, '0')}`;
      data = fold(data, {
        decisionId: `d-${i}`,
        ledgerKey: `k${i}`,
        date,
        draft: draft({ openQuestions: [`question number ${i}?`], playbooks: [{ name: `Procedure ${i}`, steps: [`step of ${i}`] }] }),
      });
    }
    const md = renderContextBody(data);
    expect(md.match(/^- `q-/gm)).toHaveLength(CONTEXT_SHOWN.questions);
    expect(md.match(/^- \*\*Procedure/gm)).toHaveLength(CONTEXT_SHOWN.playbooks);
    // The newest questions and the most recently changed playbooks stay; the rest is in the archive.
    expect(md).toContain('question number 24?');
    expect(md).not.toContain('question number 4?');
    expect(md).toContain('**Procedure 24:**');
    expect(md).toContain('_5 older open questions are listed in [CONTEXT.archive.md](CONTEXT.archive.md)._');
    expect(md).toContain('_15 older playbooks are listed in [CONTEXT.archive.md](CONTEXT.archive.md)._');
    expect(archiveNeeded(data)).toBe(true);
    const archive = renderArchiveBody(data);
    expect(section(archive, 'Older Open Questions')!.match(/^- `q-/gm)).toHaveLength(5);
    expect(section(archive, 'Older Playbooks')!.match(/^- \*\*/gm)).toHaveLength(15);
    expect(archive).toContain('question number 4?');
  });

  it('answers by hand: only an open question, only with words; the stale ones are those open longer than the limit', () => {
    const qs = first.questions!;
    expect(answerQuestion(qs, { id: 'q-000000', answer: 'x', who: 'bo', date: '2026-11-12' }).why).toBe(
      'there is no open question q-000000 in this channel (see /questions)',
    );
    expect(answerQuestion(qs, { id: q1, answer: '  ', who: 'bo', date: '2026-11-12' }).why).toMatch(/empty/);
    const r = answerQuestion(qs, { id: ` ${q1} `, answer: 'the lead', who: 'bo', date: '2026-11-12' });
    expect(r.answered).toMatchObject({ status: 'answered', answer: 'the lead', closedBy: 'bo', closed: '2026-11-12' });
    expect(qs[0].status).toBe('open');
    expect(answerQuestion(r.questions, { id: q1, answer: 'again', who: 'al', date: '2026-11-12' }).why).toBe(`${q1} is already answered`);
    expect(staleQuestions(qs, new Date('2026-11-23T12:00:00Z'), 14)).toEqual([]);
    expect(staleQuestions(qs, new Date('2026-11-24T12:00:00Z'), 14).map((q) => q.id)).toEqual([q1, q2]);
    expect(staleQuestions(r.questions, new Date('2026-11-24T12:00:00Z'), 14).map((q) => q.id)).toEqual([q2]);
  });

  it('names a playbook file from its name, also one without Latin letters', () => {
    expect(playbookSlug('Cut a Release!')).toBe('cut-a-release');
    expect(playbookSlug('发布流程')).toMatch(/^playbook-[0-9a-f]{8}$/);
    expect(playbookSlug('发布流程')).not.toBe(playbookSlug('回滚流程'));
  });
});
