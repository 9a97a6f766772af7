import fs from 'node:fs';
import type { Runtime } from '../../src/app/runtime';
import { ChatEngine } from '../../src/chat/engine';
import { ConversationStore } from '../../src/chat/conversationStore';
import { UsageBook } from '../../src/chat/usage';
import { silentLogger } from '../../src/log/logger';
import type { ChannelRef } from '../../src/memory/paths';
import { ChannelStore } from '../../src/memory/store';
import type { ConversationState, Turn } from '../../src/shared/conversation';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { countFsyncs } from '../helpers/fsyncCounter';
import { manualClock, testRuntime } from '../helpers/runtime';
import { makeTmpDir } from '../helpers/tmp';

const refN = (i: number): ChannelRef => ({ kind: 'discord', guildId: '100000000000000001', channelId: `2${String(i).padStart(17, '0')}` });
const exchange = (n: number): Turn[] => [
  { role: 'user', content: `[2026-11-21 09:00 UTC] al: question ${n}`, at: '2026-11-21T09:00:00.000Z', ids: [`m${n}`], parts: [`q${n}`] },
  { role: 'assistant', content: `answer ${n}`, at: '2026-11-21T09:00:00.000Z' },
];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until no fsync has been asked for during `quietMs` (timers and the thread pool settled). */
async function settled(counter: { readonly count: number }, quietMs = 150): Promise<number> {
  for (let last = -1; last !== counter.count;) {
    last = counter.count;
    await sleep(quietMs);
  }
  return counter.count;
}

/**
 * A stored turn is one journal line written before the reply goes and fsynced in groups; usage
 * and upkeep's last-turn time are written behind it. Counted with the real fsyncs of the process.
 */
describe('persisting a turn', () => {
  let fake: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  let rt: Runtime | undefined;
  let counter: Awaited<ReturnType<typeof countFsyncs>> | undefined;
  const clock = manualClock();

  beforeEach(async () => {
    tmp = makeTmpDir();
    fake = await startFakeModelServer();
    fake.setHandler((req) => `noted: ${req.lastUserText.slice(-12)}`);
  });
  afterEach(async () => {
    counter?.stop();
    counter = undefined;
    await rt?.close();
    rt = undefined;
    await fake.close();
    tmp.cleanup();
  });

  it('costs at most two fsyncs a turn even when every turn is alone in its commit window (conversation, usage, upkeep and the log together)', async () => {
    rt = await testRuntime(tmp.dir, fake, { clock: clock.now });
    // The tightest windows: nothing shares an fsync with the next turn.
    const conversations = new ConversationStore({ store: rt.store, logger: silentLogger(), syncEveryMs: 0 });
    const usage = new UsageBook(rt.store, { writeEveryMs: 0 });
    const engine = new ChatEngine({
      store: rt.store,
      conversations,
      usage,
      model: rt.model,
      recall: rt.recall,
      logger: silentLogger(),
      clock: clock.now,
      settings: { contextMaxChars: 8000 },
      listeners: [rt.upkeep],
    });
    const ref = refN(1);
    // First contact (folders, templates) is not a turn's cost: done before counting.
    await engine.respond(ref, [{ id: 'w', authorName: 'al', content: 'warm up', at: clock.now() }]);
    await engine.idle();
    await rt.store.idle();
    counter = await countFsyncs(tmp.dir);
    await settled(counter);
    counter.reset();
    const turns = 8;
    for (let i = 0; i < turns; i++) {
      await engine.respond(ref, [{ id: `m${i}`, authorName: 'al', content: `message ${i}`, at: clock.now() }]);
      await engine.idle();
      await settled(counter, 60);
    }
    const perTurn = counter.count / turns;
    process.stdout.write(`one turn at a time: ${counter.count} fsyncs for ${turns} turns (${perTurn.toFixed(2)} a turn)\n`);
    // The journal is fsynced for every turn here (window 0): durability was not traded away.
    expect(counter.count).toBeGreaterThanOrEqual(turns);
    expect(perTurn).toBeLessThanOrEqual(2);
    // What was written is what is held: a fresh store reads the same conversation, and the usage file the same totals.
    expect(await new ConversationStore({ store: rt.store, logger: silentLogger() }).get(ref)).toEqual(await conversations.get(ref));
    await usage.flush();
    expect((await new UsageBook(rt.store).read(ref)).byModel).toEqual((await usage.read(ref)).byModel);
    expect(Object.values((await usage.read(ref)).byModel)[0].calls).toBe(turns + 1);
  });

  it('a burst over ten channels shares its fsyncs: at most two per channel for four turns each, with the default windows', async () => {
    rt = await testRuntime(tmp.dir, fake, { clock: clock.now });
    const refs = Array.from({ length: 10 }, (_, i) => refN(10 + i));
    for (const ref of refs) await rt.engine.respond(ref, [{ id: 'w', authorName: 'al', content: 'warm up', at: clock.now() }]);
    await rt.engine.idle();
    await rt.store.idle();
    counter = await countFsyncs(tmp.dir);
    await settled(counter, 1_200);
    counter.reset();
    const perChannel = 4;
    await Promise.all(
      refs.map(async (ref, c) => {
        for (let i = 0; i < perChannel; i++) await rt!.engine.respond(ref, [{ id: `c${c}m${i}`, authorName: 'al', content: `message ${i}`, at: clock.now() }]);
      }),
    );
    // The group commit's window (1 s) has passed: every journal line is on disk by now.
    await settled(counter, 1_200);
    const perTurn = counter.count / (refs.length * perChannel);
    process.stdout.write(`burst: ${counter.count} fsyncs for ${refs.length * perChannel} turns (${perTurn.toFixed(2)} a turn)\n`);
    expect(counter.count).toBeGreaterThan(0);
    // At most one journal commit and one usage write per channel over the whole burst.
    expect(counter.count).toBeLessThanOrEqual(2 * refs.length);
  });
});

describe('the conversation journal and the bounded caches', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let store: ChannelStore;
  beforeEach(() => {
    tmp = makeTmpDir();
    store = new ChannelStore({ root: tmp.dir });
  });
  afterEach(async () => {
    await store.idle();
    tmp.cleanup();
  });
  const fresh = () => new ConversationStore({ store, logger: silentLogger() });

  it('replays after a crash: a torn last line is dropped (and cut before the next append), a line a snapshot holds is not applied twice', async () => {
    const ref = refN(1);
    const first = fresh();
    for (let n = 1; n <= 3; n++) await first.append(ref, exchange(n));
    const journal = store.paths(ref).conversationJournal;
    const beforeCut = fs.readFileSync(journal, 'utf8');
    expect(
      beforeCut
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).seq),
    ).toEqual([1, 2, 3]);
    // A compaction writes the snapshot, which then holds lines 1-3; the journal is cut.
    const { saved } = await first.update(ref, (c) => ({ ...c, summary: 'S', turns: c.turns.slice(2), compactedTurns: 2 }));
    await saved;
    expect(fs.readFileSync(journal, 'utf8')).toBe('');
    await first.append(ref, exchange(4));
    const held: ConversationState = await first.get(ref);
    expect(held.turns.map((t) => t.content)).toEqual([
      '[2026-11-21 09:00 UTC] al: question 2',
      'answer 2',
      '[2026-11-21 09:00 UTC] al: question 3',
      'answer 3',
      '[2026-11-21 09:00 UTC] al: question 4',
      'answer 4',
    ]);

    // The crash: no shutdown; a power cut undid the cut (lines 1-3 are back) and tore a line mid-write.
    fs.writeFileSync(journal, beforeCut + fs.readFileSync(journal, 'utf8') + '{"seq":5,"turns":[{"role":"us');
    const second = fresh();
    expect(await second.get(ref)).toEqual(held);
    await second.append(ref, exchange(5));
    const third = fresh();
    const after = await third.get(ref);
    expect(after).toEqual(await second.get(ref));
    expect(after.turns.slice(-2).map((t) => t.content)).toEqual(['[2026-11-21 09:00 UTC] al: question 5', 'answer 5']);
    expect(after.summary).toBe('S');
    expect(after.compactedTurns).toBe(2);

    // A clean shutdown folds the journal into conversation.json and removes it.
    await third.close();
    expect(fs.existsSync(journal)).toBe(false);
    expect(await fresh().get(ref)).toEqual(after);
  });

  it('a journal past its bound is folded into the snapshot', async () => {
    const ref = refN(2);
    const cs = new ConversationStore({ store, logger: silentLogger(), journalMaxBytes: 2_000 });
    for (let n = 1; n <= 30; n++) await cs.append(ref, exchange(n));
    await cs.idle();
    expect(fs.statSync(store.paths(ref).conversationJournal).size).toBeLessThan(2_000 + 400);
    expect(JSON.parse(fs.readFileSync(store.paths(ref).conversation, 'utf8')).journalSeq).toBeGreaterThan(0);
    expect((await fresh().get(ref)).turns).toHaveLength(60);
  });

  it('holds at most maxHeld conversations, reads an evicted one back intact, and never evicts one whose write is in flight', async () => {
    const cs = new ConversationStore({ store, logger: silentLogger(), maxHeld: 8 });
    for (let i = 0; i < 60; i++) {
      await cs.append(refN(i), exchange(i));
      await cs.append(refN(i), exchange(i + 1000));
    }
    expect(cs.heldCount).toBeLessThanOrEqual(8);
    expect((await cs.get(refN(0))).turns.map((t) => t.content)).toEqual([
      '[2026-11-21 09:00 UTC] al: question 0',
      'answer 0',
      '[2026-11-21 09:00 UTC] al: question 1000',
      'answer 1000',
    ]);

    // A compaction's snapshot is queued; before it can land (no turn of the event loop), twenty
    // other conversations pass through: the compacted one must still be the one held.
    const { state, saved } = await cs.update(refN(5), (c) => ({ ...c, summary: 'kept', turns: [], compactedTurns: 4 }));
    for (let i = 100; i < 120; i++) await cs.append(refN(i), exchange(i));
    expect(await cs.get(refN(5))).toEqual(state);
    await saved;
    expect(cs.heldCount).toBeLessThanOrEqual(8);
    expect(await fresh().get(refN(5))).toEqual(state);
  });

  it('holds at most maxHeld usage records; an evicted one is read back with its totals and keeps counting', async () => {
    const usage = new UsageBook(store, { maxHeld: 8, writeEveryMs: 0 });
    const u = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 1, cacheWriteTokens: 2 };
    const at = new Date('2026-11-21T09:00:00Z');
    for (let i = 0; i < 60; i++) await usage.add(refN(i), 'm', 'chat', u, at);
    await usage.flush();
    expect(usage.heldCount).toBeLessThanOrEqual(8);
    await usage.add(refN(0), 'm', 'chat', u, at);
    expect((await usage.read(refN(0))).byModel['chat:m']).toEqual({
      calls: 2,
      purpose: 'chat',
      inputTokens: 20,
      outputTokens: 10,
      cacheReadTokens: 2,
      cacheWriteTokens: 4,
    });
    await usage.flush();
    expect((await new UsageBook(store).read(refN(0))).byModel['chat:m'].calls).toBe(2);
  });
});
