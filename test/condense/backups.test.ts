import fs from 'node:fs';
import path from 'node:path';
import { Secretary } from '../../src/condense/saga/secretary';
import { BACKUPS_KEPT } from '../../src/memory/backups';
import type { ChannelRef } from '../../src/memory/paths';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { manualClock } from '../helpers/runtime';
import { makeTmpDir } from '../helpers/tmp';
import { FakePoster, msgs, secretaryModel, sideDeps } from './helpers';

describe('ledger backups around a condensation', () => {
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

  it('one condensation keeps the ledger as it was before the run among the backups', async () => {
    const clock = manualClock('2026-11-23T09:00:00Z');
    const d = await sideDeps(path.join(tmp.dir, 'channels'), fake, clock.now);
    const sec = new Secretary({ deps: d.deps });
    const ref: ChannelRef = { kind: 'discord', guildId: '100000000000000001', channelId: '200000000000000002', threadId: '300000000000000003' };
    const target = { ref, channelName: 'project-x', threadName: 'db', threadId: ref.threadId, trigger: 'explicit' as const };
    const poster = new FakePoster();
    // Every step of a run records itself in the ledger; the clock moves a little between them.
    const tick = setInterval(() => clock.advance(1_000), 1);
    try {
      await sec.condense({
        target,
        messages: msgs([
          ['al', 'which database?'],
          ['bea', 'decision: we use Postgres as the database'],
        ]),
        poster,
      });
      clock.advance(3_600_000);
      const dir = d.store.paths(ref).channelDir;
      const ledgerFile = path.join(dir, '.minutes', 'ledger.json');
      const beforeSecond = fs.readFileSync(ledgerFile, 'utf8');
      await sec.condense({
        target,
        messages: msgs([
          ['al', 'and the mirror?'],
          ['bea', 'decision: the mirror runs nightly at 02:00'],
        ]),
        poster,
      });
      const backups = path.join(dir, '.minutes', 'backups');
      const kept = fs
        .readdirSync(backups)
        .filter((f) => f.startsWith('.minutes__ledger.json.'))
        .sort();
      expect(kept.length).toBeLessThanOrEqual(BACKUPS_KEPT);
      expect(kept.map((f) => fs.readFileSync(path.join(backups, f), 'utf8'))).toContain(beforeSecond);
    } finally {
      clearInterval(tick);
      await d.model.close();
    }
  });
});
