import fs from 'node:fs';
import path from 'node:path';
import type { Runtime } from '../../src/app/runtime';
import { DEFAULT_MODELS } from '../../src/llm/provider';
import { parseMemory } from '../../src/memory/entries';
import type { ChannelRef } from '../../src/memory/paths';
import { SLICE } from '../../src/upkeep/memorySlice';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import type { FakeRequest } from '../fakes/model/types';
import { manualClock, testRuntime } from '../helpers/runtime';
import { makeTmpDir } from '../helpers/tmp';

/**
 * Consolidation of a channel with 5,000 memory entries: the model sees a bounded slice (what recall
 * ranks for the new messages, plus the newest), yet a contradiction of an old entry is superseded
 * and a repeat of an entry outside the slice is not added.
 */
const ref: ChannelRef = { kind: 'discord', guildId: '100000000000000001', channelId: '200000000000000002' };
const N = 5_000;
const TEAMS = ['atlas', 'borealis', 'cobalt', 'delta', 'ember', 'fjord', 'granite', 'harbor'];

function bigMemory(): string {
  const lines = ['# Channel Memory', '', '## Durable Facts', ''];
  for (let i = 0; i < N; i++) {
    const d = new Date(Date.UTC(2025, 0, 1) + Math.floor(i / 14) * 86_400_000).toISOString().slice(0, 10);
    const id = `m-${i.toString(36).padStart(5, '0')}`;
    const text =
      i === 1234
        ? 'The CSV importer stores its rows in Postgres.'
        : `Service svc${i} belongs to team ${TEAMS[i % TEAMS.length]} and is paged through rota ${i % 97}.`;
    lines.push(`- [${id}] ${text} [from: #ops, ${d}]`);
  }
  return lines.join('\n') + '\n';
}

describe('consolidation at any memory size', () => {
  let fake: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  let rt: Runtime | undefined;
  const inputs: string[] = [];

  beforeEach(async () => {
    tmp = makeTmpDir();
    inputs.length = 0;
    fake = await startFakeModelServer({
      handler: (req: FakeRequest) => {
        if (req.model === DEFAULT_MODELS.anthropic.chat) return 'Got it.';
        if (!/durable memory/.test(req.system)) return '{}';
        const input = req.messages[0].text;
        inputs.push(input);
        const shown = [...input.matchAll(/^(m-[a-z0-9]+): (.*)$/gm)].map((m) => ({ id: m[1], text: m[2] }));
        const ops: unknown[] = [];
        // A careful model: supersede the entry the decision replaces when it can see it…
        const old = shown.find((e) => /importer/i.test(e.text) && /postgres/i.test(e.text));
        if (/importer .*SQLite/i.test(input)) {
          ops.push(
            old
              ? { op: 'supersede', id: old.id, kind: 'decision', text: 'The CSV importer stores its rows in SQLite.', reason: 'changed' }
              : { op: 'add', kind: 'decision', text: 'The CSV importer stores its rows in SQLite.', reason: 'decided' },
          );
        }
        // …and a repeat of an entry it was not shown (a team change already recorded long ago).
        if (/svc2500/.test(input))
          ops.push({ op: 'add', kind: 'fact', text: 'Service svc2500 still belongs to team ember and is paged through rota 75', reason: 'stated' });
        return JSON.stringify({ operations: ops });
      },
    });
  });
  afterEach(async () => {
    await rt?.close();
    rt = undefined;
    await fake.close();
    tmp.cleanup();
  });

  it('shows the model a bounded slice of 5,000 entries, supersedes an old entry it concerns, and keeps a repeat out', async () => {
    const clock = manualClock('2026-11-21T09:00:00Z');
    rt = await testRuntime(tmp.dir, fake, {
      clock: clock.now,
      config: { limits: { maxRetries: 0, requestsPerMinute: 0 }, conversation: { tokenBudget: 100_000 } },
    });
    const dir = rt.store.paths(ref).channelDir;
    fs.mkdirSync(dir, { recursive: true });
    const memoryFile = path.join(dir, 'MEMORY.md');
    fs.writeFileSync(memoryFile, bigMemory());
    const size = fs.statSync(memoryFile).size;
    const lines = [
      'decision: the CSV importer moves from Postgres to SQLite for the prototype',
      'also svc2500 is still with ember, paged via rota 75',
      'thanks all',
    ];
    for (const [i, content] of lines.entries()) {
      clock.advance(30_000);
      await rt.engine.respond(ref, [{ id: String(900000 + i), authorName: 'al', content, at: clock.now() }]);
    }
    await rt.upkeep.tick({ forceIdle: true });
    await rt.engine.idle();

    expect(inputs).toHaveLength(1);
    const shown = inputs[0].match(/^m-[a-z0-9]+: /gm) ?? [];
    expect(shown.length).toBeLessThanOrEqual(SLICE.recalled + SLICE.newest);
    expect(inputs[0]).toContain(`of ${N} entries`);
    // A bounded request: a small fraction of the 5,000-entry file.
    expect(inputs[0].length).toBeLessThan(size / 20);

    const entries = parseMemory(fs.readFileSync(memoryFile, 'utf8')).filter((l) => l.kind === 'entry');
    const old = entries.find((e) => e.id === 'm-000ya');
    expect(old?.superseded).toBe(true);
    expect(entries.filter((e) => !e.superseded && /SQLite/.test(e.text))).toHaveLength(1);
    expect(entries.filter((e) => /svc2500 /.test(e.text))).toHaveLength(1);
    expect(entries).toHaveLength(N + 1);
  });
});
