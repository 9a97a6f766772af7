import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type InboundMessage } from '../../src/chat/conversation';
import { conversationTokens } from '../../src/shared/conversation';
import type { Runtime } from '../../src/app/runtime';
import { DEFAULT_MODELS } from '../../src/llm/provider';
import { parseMemory } from '../../src/memory/entries';
import type { ChannelRef } from '../../src/memory/paths';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import type { FakeRequest } from '../fakes/model/types';
import { manualClock, testRuntime } from '../helpers/runtime';
import { makeTmpDir } from '../helpers/tmp';

/**
 * A scripted "model" for side tasks: it reads the transcript it is given and proposes what a
 * careful model would. The test is about the plumbing around it: windows, cursors, the gate,
 * supersede, rendering and failure handling.
 */
function scriptedModel(state: { malformed: boolean; onConsolidate?: () => void; consolidateInputs: string[] }) {
  return (req: FakeRequest) => {
    if (req.model === DEFAULT_MODELS.anthropic.chat) return 'Got it.';
    if (state.malformed) return 'I think the goal is {not json';
    const input = req.messages[0].text;
    if (/durable memory/.test(req.system)) {
      state.consolidateInputs.push(input);
      state.onConsolidate?.();
      const ops: unknown[] = [];
      const entries = [...input.matchAll(/^(m-[a-z0-9]+): (.*)$/gm)].map((m) => ({ id: m[1], text: m[2] }));
      for (const line of input.split('\n')) {
        const m = /^\(msg (\d+)\) \[[^\]]+\] \w+: (.*)$/.exec(line);
        if (!m) continue;
        const [, source_message, said] = m;
        const d = /^decision: (.*)$/i.exec(said);
        if (d) {
          const topic = /\b(database|deploy)/i.exec(d[1])?.[1];
          const old = topic && entries.find((e) => e.text.toLowerCase().includes(topic.toLowerCase()));
          ops.push(
            old
              ? { op: 'supersede', id: old.id, kind: 'decision', text: d[1], reason: 'changed', source_message }
              : { op: 'add', kind: 'decision', text: d[1], reason: 'decided', source_message },
          );
        }
        const p = /^i prefer (.*)$/i.exec(said);
        if (p) ops.push({ op: 'add', kind: 'preference', text: `Bea prefers ${p[1]}`, reason: 'stated', source_message });
        // What an over-eager model proposes for chit-chat; the durability rule must drop it.
        if (/^thanks/i.test(said)) ops.push({ op: 'add', kind: 'fact', text: said, reason: 'polite' });
      }
      return JSON.stringify({ operations: ops });
    }
    if (/working-state notes/.test(req.system)) {
      // Like a real model: the newest statement wins, otherwise the current notes carry over.
      const goal = [...input.matchAll(/goal: (.*)$/gim)].pop()?.[1] ?? /## Goal\n\n(.*)/.exec(input)?.[1] ?? 'unknown';
      const next = [...input.matchAll(/next: (.*)$/gim)].pop()?.[1] ?? /## Next Steps\n\n- (.*)/.exec(input)?.[1];
      return JSON.stringify({ goal, current_state: 'in progress', next_steps: next ? [next] : [] });
    }
    if (/compact the conversation/.test(req.system)) {
      return JSON.stringify({ goal: 'ship the importer', key_decisions: ['see MEMORY.md'], next_steps: ['keep going'] });
    }
    return 'unexpected request';
  };
}

const SCRIPT: string[] = [
  'morning all',
  'goal: ship the CSV importer this week',
  'decision: we use Postgres as the database for the importer',
  'thanks, sounds good',
  'lol that meme',
  'I prefer short PR descriptions with a checklist',
  'how is the weather there?',
  'next: write the schema migration',
  'decision: deploy every Tuesday after the standup',
  'thanks for the review',
  'decision: switch the database to SQLite for the importer prototype',
  'next: benchmark the import of 1M rows',
];

function conversation(n: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) out.push(i < SCRIPT.length ? SCRIPT[i] : `just chatting about item ${i}`);
  return out;
}

const hashDir = (dir: string) => {
  const h = crypto.createHash('sha256');
  for (const f of ['MEMORY.md', 'SESSION.md', 'HISTORY.md', 'CONTEXT.md']) {
    const p = path.join(dir, f);
    h.update(f + (fs.existsSync(p) ? fs.readFileSync(p) : '-'));
  }
  return h.digest('hex');
};

describe('upkeep over a 60-message channel conversation', () => {
  let fake: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  let rt: Runtime | undefined;
  const ref: ChannelRef = { kind: 'discord', guildId: '100000000000000001', channelId: '200000000000000002' };
  const state = { malformed: false, consolidateInputs: [] as string[], onConsolidate: undefined as undefined | (() => void) };
  const clock = manualClock();

  beforeEach(async () => {
    tmp = makeTmpDir();
    state.malformed = false;
    state.consolidateInputs = [];
    state.onConsolidate = undefined;
    fake = await startFakeModelServer({ handler: scriptedModel(state) });
  });
  afterEach(async () => {
    await rt?.close();
    rt = undefined;
    await fake.close();
    tmp.cleanup();
  });

  async function say(r: Runtime, lines: string[], from = 0): Promise<void> {
    for (let i = 0; i < lines.length; i++) {
      clock.advance(30_000);
      const m: InboundMessage = { id: String(900000 + from + i), authorName: i % 2 ? 'bea' : 'al', content: lines[i], at: clock.now() };
      await r.engine.respond(ref, [m]);
      await r.upkeep.tick();
    }
    await r.upkeep.tick({ forceIdle: true });
  }

  it('produces SESSION.md with goal and next step, MEMORY.md with decisions and preferences only, a supersede, and no per-turn history', async () => {
    rt = await testRuntime(tmp.dir, fake, {
      clock: clock.now,
      config: { limits: { maxRetries: 0, requestsPerMinute: 0 }, conversation: { tokenBudget: 100_000 } },
    });
    await say(rt, conversation(60));
    const dir = rt.store.paths(ref).channelDir;
    const session = fs.readFileSync(path.join(dir, 'SESSION.md'), 'utf8');
    expect(session).toMatch(/## Goal\n\nship the CSV importer this week/);
    expect(session).toMatch(/## Next Steps\n\n- benchmark the import of 1M rows/);
    const entries = parseMemory(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8')).filter((l) => l.kind === 'entry');
    const current = entries.filter((e) => !e.superseded).map((e) => e.text);
    expect(current).toEqual(
      expect.arrayContaining([
        'deploy every Tuesday after the standup',
        'Bea prefers short PR descriptions with a checklist',
        'switch the database to SQLite for the importer prototype',
      ]),
    );
    expect(current.join('\n')).not.toMatch(/thanks|meme|weather|chatting/i);
    const superseded = entries.filter((e) => e.superseded);
    expect(superseded.map((e) => e.text)).toEqual(['we use Postgres as the database for the importer']);
    expect(current).toHaveLength(3);
    // Provenance names the message each fact came from (900000 + its index in the script).
    expect(entries.find((e) => e.text === 'deploy every Tuesday after the standup')!.source).toBe('al, msg 900008');
    // No compaction, no /new, same day: HISTORY.md has no blocks yet (not a per-turn worklog).
    expect(fs.readFileSync(path.join(dir, 'HISTORY.md'), 'utf8')).not.toMatch(/^## /m);
    // Each consolidation read only the messages since its cursor.
    const seen = state.consolidateInputs.map((i) => (i.match(/^\(msg \d+\) \[[^\]]+\] \w+: .*$/gm) ?? []).length);
    expect(seen.reduce((a, b) => a + b, 0)).toBe(60);
  });

  it('a malformed side-task reply leaves every file unchanged and is retried later', async () => {
    rt = await testRuntime(tmp.dir, fake, { clock: clock.now, config: { limits: { maxRetries: 0, requestsPerMinute: 0 } } });
    await say(rt, conversation(4));
    const dir = rt.store.paths(ref).channelDir;
    state.malformed = true;
    const before = hashDir(dir);
    await say(rt, ['decision: deploy on Fridays after all', 'next: tell ops'], 100);
    expect(hashDir(dir)).toBe(before);
    const up = await rt.upkeep.loadState(ref);
    expect(Object.keys(up.failures)).toEqual(expect.arrayContaining(['session']));
    state.malformed = false;
    clock.advance(3 * 60 * 60_000);
    await rt.upkeep.tick({ forceIdle: true });
    expect(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8')).toContain('deploy on Fridays after all');
  });

  it('a human edit to MEMORY.md made during upkeep survives', async () => {
    rt = await testRuntime(tmp.dir, fake, { clock: clock.now, config: { limits: { maxRetries: 0, requestsPerMinute: 0 } } });
    const memory = rt.store.paths(ref).memory;
    state.onConsolidate = () => fs.appendFileSync(memory, '- Written by hand while upkeep ran\n');
    await say(rt, ['decision: we use Postgres as the database for the importer']);
    const text = fs.readFileSync(memory, 'utf8');
    expect(text).toContain('Written by hand while upkeep ran');
    expect(text).toContain('we use Postgres as the database for the importer');
  });

  it('a restart in the middle resumes from the cursor without duplicating entries', async () => {
    const lines = conversation(24);
    rt = await testRuntime(tmp.dir, fake, { clock: clock.now, config: { limits: { maxRetries: 0, requestsPerMinute: 0 } } });
    await say(rt, lines.slice(0, 12));
    await rt.close();
    const firstRuns = state.consolidateInputs.length;
    rt = await testRuntime(tmp.dir, fake, { clock: clock.now, config: { limits: { maxRetries: 0, requestsPerMinute: 0 } } });
    await say(rt, ['decision: release notes are written by the on-call engineer', ...lines.slice(13)], 12);
    const later = state.consolidateInputs.slice(firstRuns).join('\n');
    expect(later).not.toContain('goal: ship the CSV importer');
    expect(later).toContain('release notes are written by the on-call engineer');
    const entries = parseMemory(fs.readFileSync(rt.store.paths(ref).memory, 'utf8')).filter((l) => l.kind === 'entry');
    const texts = entries.map((e) => e.text);
    expect(new Set(texts).size).toBe(texts.length);
    expect(texts).toContain('release notes are written by the on-call engineer');
  });

  it('compaction replaces older turns with a summary and writes one HISTORY.md block', async () => {
    rt = await testRuntime(tmp.dir, fake, {
      clock: clock.now,
      config: { limits: { maxRetries: 0, requestsPerMinute: 0 }, conversation: { tokenBudget: 2000, keepRecentTurns: 2 } },
    });
    await say(
      rt,
      Array.from({ length: 30 }, (_, i) => `a long message number ${i} ${'about the importer design '.repeat(12)}`),
    );
    const conv = await rt.engine.conversation(ref);
    expect(conv.summary).toMatch(/## Goal\nship the importer/);
    expect(conv.compactedTurns).toBeGreaterThan(0);
    // Bounded by the budget (plus the exchange that crossed it), not by the length of the talk.
    expect(conversationTokens(conv)).toBeLessThanOrEqual(2000 + 250);
    const history = fs.readFileSync(rt.store.paths(ref).history, 'utf8');
    const blocks = history.match(/^## .*Conversation compacted/gm) ?? [];
    expect(blocks.length).toBeGreaterThanOrEqual(1);
    expect(blocks.length).toBeLessThanOrEqual(conv.compactedTurns / 2);
    // The next chat request carries the summary and only the recent turns.
    await rt.engine.respond(ref, [{ id: '1', authorName: 'al', content: 'and now?', at: clock.now() }]);
    const last = fake.requests.filter((r) => r.model === DEFAULT_MODELS.anthropic.chat).pop()!;
    expect(last.system).toContain('earlier_conversation_summary');
    expect(last.messages.length).toBeLessThan(30);
  });

  it('a "context too long" answer compacts at once and retries the turn once', async () => {
    rt = await testRuntime(tmp.dir, fake, {
      clock: clock.now,
      config: { limits: { maxRetries: 0, requestsPerMinute: 0 }, conversation: { tokenBudget: 100_000, keepRecentTurns: 1 } },
    });
    await say(rt, conversation(6));
    const before = await rt.engine.conversation(ref);
    expect(before.compactedTurns).toBe(0);
    fake.enqueue({ error: { status: 400, kind: 'context_too_long' } });
    const reply = await rt.engine.respond(ref, [{ id: '777', authorName: 'al', content: 'still there?', at: clock.now() }]);
    expect(reply.text).toBe('Got it.');
    const after = await rt.engine.conversation(ref);
    expect(after.compactedTurns).toBeGreaterThan(0);
    expect(after.summary).toMatch(/## Goal/);
  });

  it('a failed summary trims the conversation safely and the summary is retried later', async () => {
    rt = await testRuntime(tmp.dir, fake, {
      clock: clock.now,
      config: { limits: { maxRetries: 0, requestsPerMinute: 0 }, conversation: { tokenBudget: 2000, keepRecentTurns: 2 } },
    });
    const broken = scriptedModel(state);
    let summariesRefused = 0;
    fake.setHandler((req) => (/compact the conversation/.test(req.system) && summariesRefused++ < 2 ? 'no json here' : broken(req)));
    await say(
      rt,
      Array.from({ length: 40 }, (_, i) => `message ${i} ${'about the importer design '.repeat(12)}`),
    );
    const conv = await rt.engine.conversation(ref);
    expect(conv.compactedTurns).toBeGreaterThan(0);
    // The first summary failed: its turns waited in pending-summary.json and went into a later one.
    expect(summariesRefused).toBeGreaterThanOrEqual(2);
    expect(fake.requests.filter((r) => /compact the conversation/.test(r.system)).length).toBeGreaterThanOrEqual(2);
    expect(conv.summary).toMatch(/## Goal\nship the importer/);
    const pending = JSON.parse(fs.readFileSync(path.join(rt.store.paths(ref).stateDir, 'pending-summary.json'), 'utf8'));
    expect(pending.turns).toEqual([]);
  });
});
