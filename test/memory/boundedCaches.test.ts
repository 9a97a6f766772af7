import fs from 'node:fs';
import { withChannelLock } from '../../src/memory/lock';
import type { ChannelRef } from '../../src/memory/paths';
import { ChannelStore } from '../../src/memory/store';
import { TEMPLATES } from '../../src/memory/templates';
import { OncePerKey } from '../../src/shared/queue';
import { countFsyncs } from '../helpers/fsyncCounter';
import { makeTmpDir } from '../helpers/tmp';

const ref = (i: number): ChannelRef => ({ kind: 'discord', guildId: '111111111111111111', channelId: String(200000000000000000n + BigInt(i)) });

/** Issue 25 §3: what is kept per channel stays bounded in a bot that meets thousands of channels. */
describe('caches that grow with the number of channels', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeEach(() => {
    tmp = makeTmpDir();
  });
  afterEach(() => tmp.cleanup());

  it('OncePerKey remembers only its most recent finished runs; a forgotten key runs once more', async () => {
    const once = new OncePerKey({ maxDone: 100 });
    const runs = new Map<string, number>();
    const task = (k: string) => async () => {
      runs.set(k, (runs.get(k) ?? 0) + 1);
    };
    for (let i = 0; i < 5_000; i++) await once.run(`c${i}`, task(`c${i}`));
    // The 100 most recent are remembered; an older one runs again (harmless: tasks only check).
    for (const k of ['c4999', 'c4900', 'c4899', 'c0']) await once.run(k, task(k));
    expect(['c4999', 'c4900', 'c4899', 'c0'].map((k) => runs.get(k))).toEqual([1, 1, 2, 2]);
    expect(once.get('c4999')).toBeDefined();
    expect(once.get('c1')).toBeUndefined();
  });

  it('OncePerKey never forgets a run in flight: a burst shares it however many keys come meanwhile', async () => {
    const once = new OncePerKey({ maxDone: 10 });
    let release!: () => void;
    let runs = 0;
    const held = once.run('busy', () => {
      runs++;
      return new Promise<void>((r) => (release = r));
    });
    for (let i = 0; i < 5_000; i++) await once.run(`c${i}`, async () => undefined);
    expect(once.run('busy', async () => void runs++)).toBe(held);
    release();
    await held;
    expect(runs).toBe(1);
  });

  it("the store's paths are kept for the most recent 4,096 conversations, and recomputed the same after", () => {
    const store = new ChannelStore({ root: tmp.dir });
    const first = store.paths(ref(0));
    const seen = Array.from({ length: 5_000 }, (_, i) => store.paths(ref(i)));
    expect(store.paths(ref(4_999))).toBe(seen[4_999]);
    const again = store.paths(ref(0));
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});

describe('first contact with a conversation after a start', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeEach(() => {
    tmp = makeTmpDir();
  });
  afterEach(() => tmp.cleanup());

  it('does not take the channel lock when its folder and files are already there', async () => {
    const p = await new ChannelStore({ root: tmp.dir }).ensureChannel(ref(1));
    // Another writer holds the channel's lock for as long as the test looks.
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holding = withChannelLock(p.channelStateDir, () => {
      locked();
      return new Promise<void>((r) => (release = r));
    });
    await isLocked;
    // A restarted bot (a new store) meeting the channel again.
    const restarted = new ChannelStore({ root: tmp.dir });
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      restarted.ensureChannel(ref(1)).then(() => 'done'),
      new Promise<string>((r) => (timer = setTimeout(() => r('waited for the lock'), 1_500))),
    ]);
    clearTimeout(timer);
    release();
    await holding;
    expect(outcome).toBe('done');
  });

  it('still creates a missing file from its template (and takes the lock to do it)', async () => {
    const p = await new ChannelStore({ root: tmp.dir }).ensureChannel(ref(2));
    fs.rmSync(p.memory);
    fs.rmSync(p.session);
    await new ChannelStore({ root: tmp.dir }).ensureChannel(ref(2));
    expect(fs.readFileSync(p.memory, 'utf8')).toBe(TEMPLATES['MEMORY.md']);
    expect(fs.readFileSync(p.session, 'utf8')).toBe(TEMPLATES['SESSION.md']);
  });

  it("makes a new channel's files from their templates without an fsync: they are made again if a power cut loses them", async () => {
    const counter = await countFsyncs(tmp.dir);
    try {
      const p = await new ChannelStore({ root: tmp.dir }).ensureChannel(ref(3));
      expect(fs.readFileSync(p.context, 'utf8')).toBe(TEMPLATES['CONTEXT.md']);
      expect(counter.count).toBe(0);
      // What a person or the bot writes there afterwards is still made durable.
      await new ChannelStore({ root: tmp.dir }).applyMemoryOps(ref(3), [{ op: 'add', text: 'The queue runs on Kafka.', source: 'test' }]);
      expect(counter.count).toBeGreaterThan(0);
    } finally {
      counter.stop();
    }
  });
});
