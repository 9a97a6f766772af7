import fs from 'node:fs';
import path from 'node:path';
import { Secretary } from '../../src/condense/saga/secretary';
import { parseMemory } from '../../src/memory/entries';
import type { ChannelRef } from '../../src/memory/paths';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { manualClock } from '../helpers/runtime';
import { makeTmpDir } from '../helpers/tmp';
import { msgs, secretaryModel, sideDeps } from './helpers';

describe("a superseded decision's constraints", () => {
  let fake: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeEach(async () => {
    tmp = makeTmpDir();
    fake = await startFakeModelServer({ handler: secretaryModel() });
  });
  afterEach(async () => {
    await fake.close();
    tmp.cleanup();
  });

  it('lapse in MEMORY.md as they do in CONTEXT.md; one restated by the new decision stays', async () => {
    const clock = manualClock('2026-11-23T09:00:00Z');
    const d = await sideDeps(path.join(tmp.dir, 'channels'), fake, clock.now);
    const sec = new Secretary({ deps: d.deps });
    const ref: ChannelRef = { kind: 'discord', guildId: '100000000000000001', channelId: '200000000000000002', threadId: '300000000000000003' };
    const target = { ref, channelName: 'project-x', threadName: 'db', threadId: ref.threadId, trigger: 'explicit' as const };
    const first = msgs([
      ['al', 'constraint: the database must run on a single node'],
      ['bea', 'constraint: backups are kept for 30 days'],
      ['al', 'decision: we use SQLite as the database for the importer'],
    ]);
    await sec.condense({ target, messages: first });
    clock.advance(86_400_000);
    // A later thread of the same channel replaces the decision and restates one constraint only.
    const ref2: ChannelRef = { ...ref, threadId: '300000000000000004' };
    await sec.condense({
      target: { ...target, ref: ref2, threadId: ref2.threadId, threadName: 'db again' },
      messages: msgs(
        [
          ['bea', 'constraint: backups are kept for 30 days'],
          ['al', 'decision: switch the database to Postgres for the importer'],
        ],
        { start: '2026-11-21T10:00:00Z' },
      ),
    });
    await d.model.close();
    const dir = d.store.paths(ref).channelDir;
    const context = fs.readFileSync(path.join(dir, 'CONTEXT.md'), 'utf8');
    const active = context.split('## Active Constraints')[1].split('##')[0];
    const memory = parseMemory(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8')).filter((l) => l.kind === 'entry');
    const current = memory.filter((l) => !l.superseded && l.text.startsWith('Constraint: ')).map((l) => l.text.slice('Constraint: '.length));
    // Every constraint MEMORY.md holds as current is one CONTEXT.md lists, and the other way round.
    expect(current.sort()).toEqual(['backups are kept for 30 days']);
    expect(active).toContain('backups are kept for 30 days');
    expect(active).not.toContain('single node');
    const lapsed = memory.find((l) => l.text === 'Constraint: the database must run on a single node');
    expect(lapsed?.superseded).toBe(true);
  });
});
