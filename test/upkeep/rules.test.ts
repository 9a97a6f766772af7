import { emptyConversation } from '../../src/shared/conversation';
import { foldHistory } from '../../src/memory/history';
import { planCompaction } from '../../src/upkeep/compact';
import { explicitMemoryOps, gateOps } from '../../src/upkeep/consolidate';
import { DEFAULT_UPKEEP, dueJobs, backoff } from '../../src/upkeep/schedule';
import { emptyUpkeepState } from '../../src/upkeep/state';
import { renderSession } from '../../src/upkeep/session';

const now = new Date('2026-11-21T12:00:00Z');

describe('dueJobs', () => {
  const tuning = { ...DEFAULT_UPKEEP, tokenBudget: 1000 };
  it('does nothing for a quiet channel with nothing new', () => {
    expect(dueJobs({ state: emptyUpkeepState(), totalTurns: 0, tokens: 0, now, tuning })).toEqual([]);
  });
  it('refreshes SESSION.md every few exchanges while a channel is busy, MEMORY.md less often', () => {
    const state = { ...emptyUpkeepState(), lastTurnAt: now.toISOString() };
    expect(dueJobs({ state, totalTurns: 6, tokens: 10, now, tuning })).toEqual([]);
    expect(dueJobs({ state, totalTurns: 8, tokens: 10, now, tuning })).toEqual(['session']);
    expect(dueJobs({ state, totalTurns: 20, tokens: 10, now, tuning })).toEqual(['session', 'memory']);
  });
  it('catches up when idle, and writes an end-of-day block once the day is over', () => {
    const state = { ...emptyUpkeepState(), lastTurnAt: '2026-11-20T17:00:00Z' };
    expect(dueJobs({ state, totalTurns: 2, tokens: 10, now, tuning })).toEqual(['session', 'memory', 'day']);
    expect(dueJobs({ state: { ...state, lastDayBlock: '2026-11-20', cursors: { session: 2, memory: 2 } }, totalTurns: 2, tokens: 10, now, tuning })).toEqual(
      [],
    );
  });
  it('over budget: session, memory, then compaction', () => {
    expect(dueJobs({ state: emptyUpkeepState(), totalTurns: 2, tokens: 5000, now, tuning })).toEqual(['session', 'memory', 'compact']);
  });
  it('backs off after a failure', () => {
    const failed = backoff({ ...emptyUpkeepState(), lastTurnAt: '2026-11-21T11:00:00Z' }, 'session', now, tuning);
    expect(dueJobs({ state: failed, totalTurns: 2, tokens: 10, now, tuning })).toEqual(['memory']);
    const later = new Date(now.getTime() + tuning.backoffMs + 1);
    expect(dueJobs({ state: failed, totalTurns: 2, tokens: 10, now: later, tuning })).toContain('session');
    expect(backoff(failed, 'session', now, tuning).failures.session.count).toBe(2);
  });
});

describe('the durability rule', () => {
  const ops = gateOps(
    {
      operations: [
        { op: 'add', kind: 'decision', text: 'The API will use cursor pagination instead of offsets', reason: '' },
        { op: 'add', kind: 'preference', text: 'Alice prefers reviews before noon UTC', reason: '' },
        { op: 'add', kind: 'fact', text: 'Thanks everyone for the help today', reason: '' },
        { op: 'add', kind: 'fact', text: 'Currently debugging the flaky login test', reason: '' },
        { op: 'add', kind: 'fact', text: 'ok', reason: '' },
        { op: 'forget', id: 'm-aaaaaa', reason: '' },
        { op: 'forget', id: 'm-bbbbbb', reason: '' },
        { op: 'forget', id: 'm-cccccc', reason: '' },
      ],
    },
    'chat 1',
  );
  it('keeps decisions and preferences', () => {
    expect(ops.ops.filter((o) => o.op === 'add').map((o) => (o as { text: string }).text)).toEqual([
      'The API will use cursor pagination instead of offsets',
      'Alice prefers reviews before noon UTC',
    ]);
  });
  it('rejects small talk, working state, fragments, and every forget the model proposes', () => {
    const forget = 'forgetting needs a person (an admin\'s "forget …" or /memory forget)';
    expect(ops.rejected.map((r) => r.why)).toEqual([
      'small talk',
      'working state belongs in SESSION.md',
      'too short to be a durable fact',
      forget,
      forget,
      forget,
    ]);
    expect(ops.ops.some((o) => o.op === 'forget')).toBe(false);
  });
});

describe('explicit requests', () => {
  const memory =
    '- [m-111111] Deploys happen from the release branch only [from: a, 2026-11-01]\n- [m-222222] The design review is on Thursdays [from: b, 2026-11-01]\n';
  it('"remember that" adds at once, even a forgotten fact', () => {
    expect(explicitMemoryOps('<@123> remember that the VPN config lives in ops/vpn', memory, 's')).toEqual([
      expect.objectContaining({ op: 'add', text: 'the VPN config lives in ops/vpn', explicit: true }),
    ]);
  });
  it('"forget" finds the entry it names', () => {
    expect(explicitMemoryOps('please forget that the design review is on Thursdays', memory, 's')).toEqual([
      expect.objectContaining({ op: 'forget', id: 'm-222222' }),
    ]);
    expect(explicitMemoryOps('forget about the weather', memory, 's')).toEqual([]);
    expect(explicitMemoryOps('what do we remember about deploys?', memory, 's')).toEqual([]);
  });
});

describe('history folding', () => {
  it('moves the oldest blocks verbatim to the archive and leaves one block saying so', () => {
    const blocks = Array.from({ length: 12 }, (_, i) => `## 2026-10-${String(i + 1).padStart(2, '0')} — Block ${i}\n\n${'text '.repeat(60)}${i}`);
    const text = `# Channel History\n\n${blocks.join('\n\n')}\n`;
    const fold = foldHistory(text, now, 2000, 4)!;
    expect(fold.archived).toContain('Block 0');
    expect(fold.archived).toContain('Block 7');
    expect(fold.archived).not.toContain('Block 8');
    for (const i of [0, 7]) expect(fold.archived).toContain(blocks[i]);
    expect(fold.history).toContain('Folded history (8 blocks)');
    expect(fold.history).toContain(blocks[11]);
    expect(fold.history).not.toContain(blocks[0]);
    expect(foldHistory('# short\n', now)).toBeNull();
  });
});

describe('compaction plan', () => {
  it('keeps recent exchanges and cuts on a user turn', () => {
    const conv = emptyConversation();
    for (let i = 0; i < 10; i++) conv.turns.push({ role: 'user', content: 'u'.repeat(400), at: '' }, { role: 'assistant', content: 'a'.repeat(400), at: '' });
    expect(planCompaction(conv, 100_000, 3)).toBeNull();
    const plan = planCompaction(conv, 500, 3)!;
    expect(plan.cut).toBe(14);
    expect(conv.turns[plan.cut].role).toBe('user');
  });
});

describe('SESSION.md rendering', () => {
  it('caps items and lengths and never writes a secret', () => {
    const md = renderSession(
      {
        goal: 'Ship v2 of the importer',
        current_state: 'x'.repeat(2000),
        links: Array.from({ length: 30 }, (_, i) => `https://example.org/${i}`),
        open_questions: [],
        next_steps: ['Rotate the key sk-ant-api03-abcdefghijklmnopqrstuvwxyz'],
        recent_errors: [],
      },
      now,
    );
    expect(md).toContain('## Goal\n\nShip v2 of the importer');
    expect(md.match(/https:\/\/example\.org/g)).toHaveLength(8);
    expect(md).not.toContain('x'.repeat(700));
    expect(md).not.toContain('sk-ant-api03');
  });
});
