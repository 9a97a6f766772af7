import fs from 'node:fs';
import path from 'node:path';
import type { Runtime } from '../../src/app/runtime';
import type { ChannelRef } from '../../src/memory/paths';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import { testRuntime } from '../helpers/runtime';
import { makeTmpDir } from '../helpers/tmp';

const ref: ChannelRef = { kind: 'local', name: 'ops' };
const RESET = 'the staging database is reset every Sunday at 03:00 UTC';
const VPN = 'the staging VPN needs a hardware key from Priya';

describe('a turn does not recall what CONTEXT.md already puts in the prompt', () => {
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

  it('a MEMORY.md line that CONTEXT.md also holds is sent once (in the context), the other matching line is recalled', async () => {
    rt = await testRuntime(tmp.dir, fake);
    const p = rt.store.paths(ref);
    fs.mkdirSync(path.dirname(p.context), { recursive: true });
    // A line a person copied into CONTEXT.md's notes, word for word, from MEMORY.md.
    fs.writeFileSync(p.context, `# Channel Context\n\n## Notes (hand-written)\n\n- ${RESET}\n`);
    fs.writeFileSync(p.memory, `# Channel Memory\n\n## Durable Facts\n\n- ${RESET}\n- ${VPN}\n`);

    const reply = await rt.engine.respond(ref, [
      { id: '1', authorName: 'al', content: 'when is the staging database reset, and what does the staging VPN need?', at: new Date('2026-11-25T09:00:00Z') },
    ]);

    const recalled = reply.recall.items.map((i) => i.text);
    expect(recalled).toContain(`- ${VPN}`);
    expect(recalled.filter((t) => t.includes(RESET))).toEqual([]);
    // What the model was sent, system and turns: the copied line once, the other line recalled.
    const sent = fake.requests.filter((r) => r.status === 200).map((r) => [r.system, ...r.messages.map((m) => m.text)].join('\n'));
    expect(sent).toHaveLength(1);
    expect(sent[0].split(RESET)).toHaveLength(2);
    expect(sent[0]).toContain(VPN);
  });
});
