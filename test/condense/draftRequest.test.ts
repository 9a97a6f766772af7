import path from 'node:path';
import { cleanDraft, DRAFT_CAPS, draftCondensation, normalizeDecision } from '../../src/condense/saga/draft';
import type { ChannelRef } from '../../src/memory/paths';
import { manualClock } from '../helpers/runtime';
import { withTmpAndFakeModel } from '../helpers/tmpAndFakeModel';
import { msgs, secretaryModel, sideDeps } from './helpers';

/**
 * What the Secretary's model is shown (the request text, byte for byte) and how a long discussion
 * is summarized in parts first: the mutation run showed neither had an in-process assertion.
 */
describe("the Secretary's request to the model", () => {
  const world = withTmpAndFakeModel();
  const ref: ChannelRef = { kind: 'local', name: 'proj' };
  const reply = { topic: 'Queue', context: 'c', decision: 'Use Kafka.', rationale: 'r', action_items: [], supersedes: [], constraints: [], current_state: 's' };

  it('shows the channel, the topic asked for, the current decisions and constraints, then the discussion, without doubled blank lines', async () => {
    const d = await sideDeps(path.join(world.tmp.dir, 'channels'), world.fake, manualClock().now);
    const inputs: string[] = [];
    world.fake.setHandler((req) => (inputs.push(req.messages[0].text), JSON.stringify(reply)));
    const human = msgs([
      ['al', 'The queue falls behind.'],
      ['bea', 'Kafka then.'],
    ]);
    await draftCondensation(d.deps, {
      ref,
      channelName: 'proj',
      threadName: 'queue',
      topicHint: 'the queue',
      human,
      currentDecisions: [{ id: 'd-0000000001', date: '2026-11-01', topic: 'Queue', text: 'Use RabbitMQ.' }],
      activeConstraints: ['Mass < 12 kg', 'EU hosting only'],
      budgetChars: 40_000,
    });
    expect(inputs).toEqual([
      [
        'Channel: #proj › queue',
        'Requested topic: the queue',
        '',
        'Current key decisions (id, date, topic: decision):',
        '- d-0000000001 [2026-11-01] Queue: Use RabbitMQ.',
        '',
        'Active constraints:',
        '- Mass < 12 kg',
        '- EU hosting only',
        '',
        'The discussion, oldest first:',
        '[2026-11-20 10:01] al: The queue falls behind.',
        '[2026-11-20 10:02] bea: Kafka then.',
      ].join('\n'),
    ]);
    // Nothing current, no topic asked for, a channel rather than a thread: one blank line between parts.
    inputs.length = 0;
    await draftCondensation(d.deps, { ref, channelName: 'proj', human, currentDecisions: [], activeConstraints: [], budgetChars: 40_000 });
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
        'The discussion, oldest first:',
        '[2026-11-20 10:01] al: The queue falls behind.',
        '[2026-11-20 10:02] bea: Kafka then.',
      ].join('\n'),
    );
  });

  it('summarizes a discussion longer than its budget in numbered parts, says so as it goes, and condenses the summaries', async () => {
    const d = await sideDeps(path.join(world.tmp.dir, 'channels'), world.fake, manualClock().now);
    const state = { inputs: [] as string[] };
    world.fake.setHandler(secretaryModel(state));
    const lines: [string, string][] = Array.from({ length: 60 }, (_, i) => [i % 2 ? 'al' : 'bea', `${'x'.repeat(90)} message ${i}`]);
    lines.push(['bea', 'decision: Use Kafka for the queue.']);
    const progress: string[] = [];
    const draft = await draftCondensation(d.deps, {
      ref,
      channelName: 'proj',
      human: msgs(lines),
      currentDecisions: [],
      activeConstraints: [],
      budgetChars: 4_000,
      onProgress: (m) => progress.push(m),
    });
    const parts = state.inputs.length - 1;
    expect(parts).toBeGreaterThan(1);
    state.inputs.slice(0, parts).forEach((input, i) => expect(input.startsWith(`Part ${i + 1} of ${parts} of the discussion:\n\n[`)).toBe(true));
    expect(progress).toEqual([...Array.from({ length: parts }, (_, i) => `summarizing part ${i + 1} of ${parts}`), 'condensing']);
    const final = state.inputs[parts];
    for (let i = 1; i <= parts; i++) expect(final).toContain(`Part ${i} of ${parts} (summarized):\n`);
    expect(final).not.toContain('message 0');
    expect(final).toContain(`Part ${parts} of ${parts} (summarized):\n[`);
    expect(draft.decision).toBe('Use Kafka for the queue.');
  });
});

describe("the model's decision text", () => {
  it('reads "none" and its usual wordings as no decision, whole and in any case, and nothing else', () => {
    for (const t of [
      'none',
      'None.',
      'n/a',
      'No decision',
      'no decision made',
      'No decision was reached.',
      'no conclusion',
      '  none  ',
      'no\n decision   was made',
      '',
    ])
      expect([t, normalizeDecision(t)]).toEqual([t, 'none']);
    for (const t of ['none of the options fit, so we keep Redis', 'We reached none', 'No decision was made..', 'no decision was reached yet', 'n/a for now'])
      expect(normalizeDecision(t)).toBe(t);
    expect(normalizeDecision('Use   Kafka\n for the  queue. ')).toBe('Use Kafka for the queue.');
  });

  it('keeps a field of exactly the cap whole, trimmed, and clips one longer', () => {
    const base = { topic: 'T', decision: 'D', action_items: [], supersedes: [], constraints: [], current_state: '' };
    const exact = 'a'.repeat(DRAFT_CAPS.text);
    expect(cleanDraft({ ...base, context: `  ${exact}  `, rationale: 'r' }, new Set()).context).toBe(exact);
    const long = `${'word '.repeat(DRAFT_CAPS.text / 5)}tail`;
    expect(cleanDraft({ ...base, context: long, rationale: 'r' }, new Set()).context.length).toBeLessThanOrEqual(DRAFT_CAPS.text + 1);
  });
});
