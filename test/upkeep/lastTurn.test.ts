import fs from 'node:fs';
import type { Runtime } from '../../src/app/runtime';
import type { ChannelRef } from '../../src/memory/paths';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { manualClock, testRuntime } from '../helpers/runtime';
import { makeTmpDir } from '../helpers/tmp';

/**
 * Upkeep's "last turn" time is kept in memory, not written on every turn: it reaches upkeep.json
 * with upkeep's next write or at stop, and after a crash it is read from the conversation's turns.
 */
describe("upkeep's last-turn time", () => {
  let fake: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  let rt: Runtime | undefined;
  const ref: ChannelRef = { kind: 'discord', guildId: '100000000000000001', channelId: '200000000000000002' };
  const clock = manualClock('2026-11-20T16:00:00Z');
  const say = (r: Runtime, id: string) => r.engine.respond(ref, [{ id, authorName: 'al', content: `message ${id}`, at: clock.now() }]);

  beforeEach(async () => {
    tmp = makeTmpDir();
    // Side tasks get a reply that is not their JSON: a failed job, and nothing of this test depends on it.
    fake = await startFakeModelServer({ handler: () => 'ok' });
  });
  afterEach(async () => {
    await rt?.close();
    rt = undefined;
    await fake.close();
    tmp.cleanup();
  });

  it('is not written on every turn, and is written at stop', async () => {
    rt = await testRuntime(tmp.dir, fake, { clock: clock.now });
    const file = rt.store.paths(ref).upkeep;
    for (const id of ['1', '2', '3']) {
      clock.advance(30_000);
      await say(rt, id);
    }
    await rt.engine.idle();
    // An upkeep step queued behind anything a turn started.
    await rt.upkeep.tick();
    expect(fs.existsSync(file)).toBe(false);
    expect((await rt.upkeep.loadState(ref)).lastTurnAt).toBe(clock.now().toISOString());
    await rt.close();
    rt = undefined;
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).lastTurnAt).toBe(clock.now().toISOString());
  });

  it('after a crash that left upkeep.json without it, comes from the conversation: the idle catch-up and the end-of-day HISTORY block still run', async () => {
    rt = await testRuntime(tmp.dir, fake, { clock: clock.now });
    await say(rt, '1');
    const lastTurn = clock.now().toISOString();
    await rt.close();
    rt = undefined;
    // What a kill -9 before stop leaves: no last-turn time in upkeep.json (or no upkeep.json).
    const file = `${tmp.dir}/100000000000000001/200000000000000002/.minutes/upkeep.json`;
    if (fs.existsSync(file)) {
      const { lastTurnAt: _dropped, ...rest } = JSON.parse(fs.readFileSync(file, 'utf8'));
      fs.writeFileSync(file, JSON.stringify(rest));
    }

    clock.set('2026-11-21T09:00:00Z');
    rt = await testRuntime(tmp.dir, fake, { clock: clock.now });
    expect((await rt.upkeep.loadState(ref)).lastTurnAt).toBe(lastTurn);
    // One exchange is under every count threshold: only idleness makes the session refresh due.
    const jobs = await rt.upkeep.runDue(ref);
    expect(jobs).toEqual(expect.arrayContaining(['session', 'day']));
    expect(fs.readFileSync(rt.store.paths(ref).history, 'utf8')).toContain('End of an active day');
    expect(fs.readFileSync(rt.store.paths(ref).history, 'utf8')).toContain('2026-11-20');
  });
});
