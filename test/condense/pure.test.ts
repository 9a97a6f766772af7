import { composeContext } from '../../src/condense/knowledge/contextHandEdits';
import { ContextData } from '../../src/condense/knowledge/contextData';
import { contextStaleness } from '../../src/condense/knowledge/contextStaleness';
import { NOTES_HEADING } from '../../src/condense/knowledge/contextHash';
import { renderContextBody } from '../../src/condense/knowledge/contextRender';
import { cleanDraft, DRAFT_CAPS } from '../../src/condense/saga/draft';
import { foldCondensation } from '../../src/condense/knowledge/fold';
import { autoGate } from '../../src/condense/saga/gate';
import { restatesSuperseded } from '../../src/condense/audit/audit';
import { markFileSuperseded, readFrontmatter, renderFile, renderPost, slugify } from '../../src/condense/condensation/render';
import { humanMessages, ledgerKey, messagesSince } from '../../src/condense/condensation/transcript';
import type { CondensationDraft, CondensationFacts } from '../../src/condense/condensation/types';
import { msgs } from './helpers';
import { condensationMarkIn, hiddenCondensationMark } from '../../src/shared/markers';

const facts: CondensationFacts = {
  date: '2026-11-20',
  channelName: 'project-x',
  participants: ['al', 'bea'],
  firstMessageId: '1',
  lastMessageId: '9',
  messageCount: 9,
};
const draft = (over: Partial<CondensationDraft> = {}): CondensationDraft => ({
  topic: 'Mirror material',
  context: 'Which glass for M2.',
  decision: 'Clearceram-Z HS for M2',
  rationale: 'CTE matches, cheaper',
  actionItems: ['al: order samples'],
  supersedes: [],
  constraints: ['Mass < 12 kg'],
  currentState: 'Detailed design',
  ...over,
});

describe('rendering', () => {
  it('fits the Discord post under 2,000 characters by clipping rationale and items, never participants or the date', () => {
    const long = draft({ rationale: 'because '.repeat(400), actionItems: Array.from({ length: 40 }, (_, i) => `person ${i}: do a thing of some length`) });
    const post = renderPost({ draft: long, facts, supersedes: [] }, 'ab'.repeat(32));
    expect(post.length).toBeLessThanOrEqual(2000);
    expect(post).toContain('**Participants:** al, bea');
    expect(post).toContain('**Date:** 2026-11-20');
    expect(post).toContain('**Decision:** Clearceram-Z HS for M2');
    expect(post).toMatch(/\*\*Rationale:\*\* because .*…/);
    // The ledger key rides on the heading line in characters Discord shows as nothing; no line for people to read.
    expect(post).not.toContain('minutes:cond');
    expect(post.split('\n')[0]).toBe(`## 📝 Condensation: Mirror material${hiddenCondensationMark('abababababab')}`);
    expect(condensationMarkIn(post)).toBe('minutes:cond:abababababab');
  });

  it('files with frontmatter and adds superseded_by as a one-line edit', () => {
    const text = renderFile(
      {
        date: '2026-11-20',
        topic: 'Mirror material',
        channel: 'project-x',
        channelRef: 'local/x',
        participants: ['al'],
        firstMessageId: '1',
        lastMessageId: '2',
        messageCount: 2,
        decisionId: 'd-0123456789',
        supersedes: [],
        supersedesFiles: [],
        ledgerKey: 'k',
        trigger: 'explicit',
      },
      '## 📝 Condensation: Mirror material',
    );
    const marked = markFileSuperseded(text, '2026-11-22-mirror.md');
    expect(readFrontmatter(marked)!.superseded_by).toBe('2026-11-22-mirror.md');
    expect(marked.replace('superseded_by: "2026-11-22-mirror.md"\n', '')).toBe(text);
    expect(markFileSuperseded(marked, 'other.md')).toBe(marked);
  });

  it('slugs', () => {
    expect(slugify('Zerodur vs. CCZ-HS: Matériau!')).toBe('zerodur-vs-ccz-hs-materiau');
    expect(slugify('🎉')).toBe('condensation');
  });
});

describe('the model part', () => {
  it('keeps only supersedes ids that exist and normalizes "no decision"', () => {
    const reply = {
      topic: ' T ',
      context: '',
      decision: 'No decision.',
      rationale: '',
      action_items: [' ', 'x'],
      supersedes: ['d-1', 'made-up'],
      constraints: [],
      current_state: '',
    };
    const d = cleanDraft(reply, new Set(['d-1']));
    expect(d.decision).toBe('none');
    expect(d.supersedes).toEqual([]);
    expect(d.actionItems).toEqual(['x']);
    expect(cleanDraft({ ...reply, decision: 'Go' }, new Set(['d-1'])).supersedes).toEqual(['d-1']);
  });

  it('caps a runaway reply so CONTEXT.md and MEMORY.md get a page, not 200 KB', () => {
    const huge = 'word '.repeat(40_000);
    const d = cleanDraft(
      {
        topic: huge,
        context: huge,
        decision: huge,
        rationale: huge,
        action_items: Array(50).fill(huge),
        supersedes: [],
        constraints: [huge],
        current_state: huge,
      },
      new Set(),
    );
    expect(d.topic.length).toBeLessThanOrEqual(DRAFT_CAPS.topic);
    expect(d.decision.length).toBeLessThanOrEqual(DRAFT_CAPS.decision);
    for (const t of [d.context, d.rationale, d.currentState]) expect(t.length).toBeLessThanOrEqual(DRAFT_CAPS.text);
    expect(d.actionItems).toHaveLength(DRAFT_CAPS.items);
    for (const t of [...d.actionItems, ...d.constraints]) expect(t.length).toBeLessThanOrEqual(DRAFT_CAPS.item);
    expect(d.decision.endsWith('…')).toBe(true);
    const small = cleanDraft(
      {
        ...d,
        topic: 'Pick a DB',
        context: 'Line one.\nLine two.',
        decision: 'Use SQLite',
        rationale: '',
        action_items: [],
        supersedes: [],
        constraints: [],
        current_state: '',
      },
      new Set(),
    );
    expect(small).toMatchObject({ topic: 'Pick a DB', context: 'Line one.\nLine two.', decision: 'Use SQLite' });
  });
});

describe('transcript and key', () => {
  it('strips bots, recall blocks and relayed condensations; the key ignores them', () => {
    const base = msgs([
      ['al', 'hi <recalled_memory>x</recalled_memory>'],
      ['bea', 'yo'],
    ]);
    const noisy = [
      ...base,
      ...msgs([
        ['minutes', 'bot reply'],
        ['al', '## 📝 Condensation: X\n**Date:** …'],
        ['bea', '<recalled_memory>only</recalled_memory>'],
      ]),
    ];
    expect(humanMessages(base).map((m) => m.content)).toEqual(['hi', 'yo']);
    expect(ledgerKey(humanMessages(noisy))).toBe(ledgerKey(humanMessages(base)));
    expect(messagesSince(base, base[0].id)).toEqual([base[1]]);
  });
});

describe('the automatic gate', () => {
  const first = new Date('2026-11-01T00:00:00Z');
  const six = msgs([
    ['al', '1'],
    ['bea', '2'],
    ['al', '3'],
    ['bea', '4'],
    ['al', '5'],
    ['bea', '6'],
  ]);
  it('needs 6 human messages from 2 people, archived after the bot first ran', () => {
    expect(autoGate({ humanSinceLast: six, botFirstRanAt: first, archivedAt: new Date('2026-11-21T00:00:00Z') })).toEqual({ ok: true });
    expect(autoGate({ humanSinceLast: six.slice(1), botFirstRanAt: first })).toMatchObject({ ok: false, reason: expect.stringMatching(/only 5/) });
    expect(autoGate({ humanSinceLast: six.map((m) => ({ ...m, authorId: 'u-al' })), botFirstRanAt: first })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/1 person/),
    });
    expect(autoGate({ humanSinceLast: six, botFirstRanAt: first, archivedAt: new Date('2026-10-01T00:00:00Z') })).toMatchObject({ ok: false });
  });
});

describe('CONTEXT.md', () => {
  const d1 = foldCondensation(
    { version: 1, decisions: [], constraints: [] },
    {
      decisionId: 'd-aaaaaaaaaa',
      ledgerKey: 'aaaa',
      draft: draft({ topic: 'Material', decision: 'Zerodur Class 0', constraints: ['Mass < 12 kg'] }),
      facts: { ...facts, date: '2026-02-05' },
      file: '2026-02-05-material.md',
      supersedes: [],
    },
  );
  const d2: ContextData = foldCondensation(d1, {
    decisionId: 'd-bbbbbbbbbb',
    ledgerKey: 'bbbb',
    draft: draft({ topic: 'Material', decision: 'Clearceram-Z HS', constraints: ['First mode > 150 Hz'], currentState: 'Post-CDR' }),
    facts: { ...facts, date: '2026-02-15' },
    file: '2026-02-15-material.md',
    supersedes: ['d-aaaaaaaaaa'],
  });

  it('renders the sections from context.json, superseded decisions struck through', () => {
    expect(renderContextBody(d2)).toBe(
      [
        '# Channel Context',
        '',
        '## Current State',
        '',
        'Post-CDR _(as of 2026-02-15)_',
        '',
        '## Key Decisions',
        '',
        '1. [2026-02-15] **Material:** Clearceram-Z HS ([condensation](condensations/2026-02-15-material.md)) — proposed',
        '',
        '## Active Constraints',
        '',
        '- First mode > 150 Hz',
        '',
        // The replaced decision's item was dropped with it; the new decision's is open.
        '## Open Action Items',
        '',
        '- `a-a41d43` order samples — al _(from 2026-02-15)_',
        '',
        '## Superseded Decisions',
        '',
        '- ~~[2026-02-05] Material: Zerodur Class 0~~ → Replaced by Clearceram-Z HS (2026-02-15)',
        '',
      ].join('\n'),
    );
  });

  it('keeps lines a person changed or added under Notes (hand-written), and knows when it is current', () => {
    const v1 = composeContext(null, d1, d1);
    expect(contextStaleness(v1, d1)).toBeNull();
    const edited = v1.replace('- Mass < 12 kg', '- Mass < 11.5 kg (customer update)') + 'Remember: the customer visits in March.\n';
    expect(contextStaleness(edited, d1)).toMatch(/edited by hand/);
    const v2 = composeContext(edited, d1, d2);
    const notes = v2.split(NOTES_HEADING)[1];
    expect(notes).toContain('- Mass < 11.5 kg (customer update)');
    expect(notes).toContain('Remember: the customer visits in March.');
    expect(contextStaleness(v2, d2)).toBeNull();
    // Notes survive the next render too, once, not duplicated.
    const v3 = composeContext(v2, d2, d2);
    expect(v3).toBe(v2);
    expect(contextStaleness(v2, d1)).toMatch(/out of date/);
  });
});

describe('staleness', () => {
  it('a line restating the old decision is stale; one about the change, or the new decision, is not', () => {
    const oldD = 'we use Postgres as the database for the importer';
    const newD = 'switch the database to SQLite for the importer prototype';
    expect(restatesSuperseded('The importer database is Postgres', oldD, newD)).toBe(true);
    expect(restatesSuperseded('Importer moved from Postgres to SQLite', oldD, newD)).toBe(false);
    expect(restatesSuperseded('Decision (Database choice): switch the database to SQLite for the importer prototype', oldD, newD)).toBe(false);
    expect(restatesSuperseded('Bea likes Postgres conferences', oldD, newD)).toBe(false);
  });
});
