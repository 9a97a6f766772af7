import fs from 'node:fs';
import path from 'node:path';
import type { Runtime } from '../../src/app/runtime';
import type { ChannelRef } from '../../src/memory/paths';
import { parsedJsonLines } from '../../src/shared/jsonLines';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import { testRuntime } from '../helpers/runtime';
import { makeTmpDir } from '../helpers/tmp';

/**
 * Issue 41 §4: each turn's `reply` line in log.jsonl says what recall did, so the dashboard can show
 * a channel's recall health from the log alone: the lines injected (a MEMORY.md entry by its id,
 * any other line by its first characters), or the one gate that kept recall silent.
 */
const ref: ChannelRef = { kind: 'local', name: 'ops' };
const RESET = '- [m-aa0001] the staging database is reset every Sunday at 03:00 UTC [from: al, 2026-11-01]';
const VPN = '- [m-aa0002] the staging VPN needs a hardware key from Priya [from: bea, 2026-11-02]';
const HISTORY_LINE = `Moved the staging database reset to Sundays after the ${'long '.repeat(40)}discussion.`;

describe("a turn's reply line in log.jsonl carries what recall did", () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let fake: FakeModelServer;
  let rt: Runtime | undefined;

  beforeEach(async () => {
    tmp = makeTmpDir();
    fake = await startFakeModelServer();
    fake.setHandler(() => 'noted');
  });
  afterEach(async () => {
    await rt?.close();
    rt = undefined;
    await fake.close();
    tmp.cleanup();
  });

  async function replies(): Promise<Record<string, unknown>[]> {
    const log = rt!.store.paths(ref).log;
    // The reply's line is appended without the turn waiting for it.
    for (let i = 0; i < 100; i++) {
      const recs = fs.existsSync(log) ? (parsedJsonLines(fs.readFileSync(log, 'utf8')) as Record<string, unknown>[]) : [];
      const out = recs.filter((r) => r.type === 'reply');
      if (out.length >= 2) return out;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the reply lines never reached log.jsonl');
  }

  it('injected lines by entry id or first characters, and the gate that closed when it abstained', async () => {
    rt = await testRuntime(tmp.dir, fake);
    const p = rt.store.paths(ref);
    fs.mkdirSync(path.dirname(p.memory), { recursive: true });
    fs.writeFileSync(p.memory, `# Channel Memory\n\n## Durable Facts\n\n${RESET}\n${VPN}\n`);
    fs.writeFileSync(p.history, `# History\n\n## 2026-11-01\n\n${HISTORY_LINE}\n`);

    const asked = await rt.engine.respond(ref, [
      { id: '1', authorName: 'al', content: 'when is the staging database reset, and does the staging VPN need a key?', at: new Date('2026-11-25T09:00:00Z') },
    ]);
    expect(asked.recall.items.length).toBeGreaterThan(0);
    const chat = await rt.engine.respond(ref, [{ id: '2', authorName: 'al', content: 'happy friday everyone', at: new Date('2026-11-25T09:01:00Z') }]);
    expect(chat.recall.items).toEqual([]);

    const [first, second] = await replies();
    const lines = (first.recall as { lines: { file: string; id?: string; text?: string }[] }).lines;
    expect(lines).toEqual(
      asked.recall.items.map((i) =>
        i.file === 'MEMORY.md' ? { file: 'MEMORY.md', id: /\[(m-[a-z0-9]+)\]/.exec(i.text)![1] } : { file: i.file, text: expect.any(String) },
      ),
    );
    expect(lines).toContainEqual({ file: 'MEMORY.md', id: 'm-aa0001' });
    // A line without an entry id: its first 120 characters.
    const history = lines.find((l) => l.file === 'HISTORY.md');
    expect(history?.text).toMatch(/^Moved the staging database reset to Sundays after the (long )+…$/);
    expect(history!.text!.length).toBe(120);
    expect(first.recall).not.toHaveProperty('silence');
    // Words only (the test runtime's default): the chat line stays below the evidence gate.
    expect(second.recall).toEqual({ silence: 'words-below-gate' });
    // The record keeps what it held before.
    expect(second).toMatchObject({ type: 'reply', content: 'noted', inReplyTo: ['2'] });
  });
});
