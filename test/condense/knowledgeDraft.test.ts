import path from 'node:path';
import { cleanDraft, DRAFT_CAPS, draftCondensation } from '../../src/condense/saga/draft';
import { LedgerEntry } from '../../src/condense/saga/ledgerSchema';
import type { ChannelRef } from '../../src/memory/paths';
import { manualClock } from '../helpers/runtime';
import { withTmpAndFakeModel } from '../helpers/tmpAndFakeModel';
import { msgs, sideDeps } from './helpers';

/**
 * The Secretary's JSON with open questions, answers and playbooks: the model is shown the open
 * questions (with ids) and the playbooks, answers only to questions it was shown count, and a draft
 * or a ledger written before these fields existed still loads.
 */
describe("the Secretary's open questions and playbooks", () => {
  const world = withTmpAndFakeModel();
  const ref: ChannelRef = { kind: 'local', name: 'proj' };
  const base = {
    topic: 'Release',
    context: 'c',
    decision: 'Ship on Tuesdays.',
    rationale: 'r',
    action_items: [],
    supersedes: [],
    constraints: [],
    current_state: 's',
  };

  it('shows open questions and playbooks after the constraints, and keeps only answers to questions it showed', async () => {
    const d = await sideDeps(path.join(world.tmp.dir, 'channels'), world.fake, manualClock().now);
    const inputs: string[] = [];
    world.fake.setHandler((req) => {
      inputs.push(req.messages[0].text);
      return JSON.stringify({
        ...base,
        open_questions: ['al: who signs off a hotfix?', '  ', 'none'],
        answered_questions: [
          { id: 'q-aaaaaa', answer: 'eu-west-1, next to the database.' },
          { id: 'q-ffffff', answer: 'an invented question' },
          { id: 'q-aaaaaa', answer: 'a second answer to the same one' },
        ],
        playbooks: [
          { name: 'Cut a release', steps: ['freeze the branch', '', 'tag it'] },
          { name: 'cut a release', steps: ['a duplicate by name'] },
          { name: 'Empty', steps: [] },
        ],
      });
    });
    const draft = await draftCondensation(d.deps, {
      ref,
      channelName: 'proj',
      human: msgs([
        ['al', 'Which region for the replica?'],
        ['bea', 'eu-west-1.'],
      ]),
      currentDecisions: [],
      activeConstraints: [],
      openQuestions: [{ id: 'q-aaaaaa', opened: '2026-11-10', text: 'which region hosts the replica? — al' }],
      playbooks: [{ name: 'Cut a release', steps: ['freeze the branch', 'tag it'] }],
      budgetChars: 40_000,
    });
    expect(inputs[0]).toBe(
      [
        'Channel: #proj',
        '',
        'Current key decisions (id, date, topic: decision):',
        '(none yet)',
        '',
        'Active constraints:',
        '(none)',
        '',
        'Open questions (id, date asked, question):',
        '- q-aaaaaa [2026-11-10] which region hosts the replica? — al',
        '',
        'Playbooks (name: steps in order):',
        '- Cut a release: 1) freeze the branch 2) tag it',
        '',
        'The discussion, oldest first:',
        '[2026-11-20 10:01] al: Which region for the replica?',
        '[2026-11-20 10:02] bea: eu-west-1.',
      ].join('\n'),
    );
    expect(draft.openQuestions).toEqual(['al: who signs off a hotfix?']);
    expect(draft.answeredQuestions).toEqual([{ id: 'q-aaaaaa', answer: 'eu-west-1, next to the database.' }]);
    expect(draft.playbooks).toEqual([{ name: 'Cut a release', steps: ['freeze the branch', 'tag it'] }]);
  });

  it('a reply with a malformed playbook is refused and asked again, like any malformed field', async () => {
    const d = await sideDeps(path.join(world.tmp.dir, 'channels'), world.fake, manualClock().now);
    let n = 0;
    world.fake.setHandler(() => JSON.stringify(n++ === 0 ? { ...base, playbooks: [{ name: 'x', steps: 'one, two' }] } : base));
    const draft = await draftCondensation(d.deps, {
      ref,
      channelName: 'proj',
      human: msgs([['al', 'hi']]),
      currentDecisions: [],
      activeConstraints: [],
      budgetChars: 40_000,
    });
    expect(n).toBe(2);
    expect(draft).not.toHaveProperty('playbooks');
  });

  it('caps questions, steps and playbooks, and adds no field the model did not fill', () => {
    const many = Array.from({ length: 40 }, (_, i) => `step ${i}`);
    const c = cleanDraft(
      { ...base, open_questions: many, playbooks: Array.from({ length: 9 }, (_, i) => ({ name: `P${i}`, steps: many })) },
      new Set(),
      undefined,
      new Set(),
    );
    expect(c.openQuestions).toHaveLength(DRAFT_CAPS.items);
    expect(c.playbooks).toHaveLength(DRAFT_CAPS.playbooks);
    expect(c.playbooks![0].steps).toHaveLength(DRAFT_CAPS.steps);
    const plain = cleanDraft(base, new Set());
    expect(Object.keys(plain).sort()).toEqual(['actionItems', 'constraints', 'context', 'currentState', 'decision', 'rationale', 'supersedes', 'topic']);
  });

  it('a ledger entry written before these fields existed still loads', () => {
    const old = {
      key: 'k',
      status: 'done',
      trigger: 'explicit',
      conversation: { label: 'local/proj', channelName: 'proj' },
      facts: { date: '2026-11-01', channelName: 'proj', participants: ['al'], firstMessageId: '1', lastMessageId: '2', messageCount: 2 },
      decisionId: 'd-0000000001',
      draft: { topic: 'T', context: '', decision: 'D', rationale: '', actionItems: [], supersedes: [], constraints: [], currentState: '' },
      steps: {},
      attempts: 1,
      createdAt: '2026-11-01T00:00:00Z',
      updatedAt: '2026-11-01T00:00:00Z',
    };
    const parsed = LedgerEntry.parse(old);
    expect(parsed.draft?.openQuestions).toBeUndefined();
    expect(LedgerEntry.safeParse({ ...old, draft: { ...old.draft, playbooks: [{ name: 'x' }] } }).success).toBe(false);
  });
});
