import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ChannelStore } from '../../src/memory/store';
import { ChannelFolders } from '../../src/memory/channelFolders';
import { StoreError } from '../../src/memory/storeErrors';
import { ChannelRef, InvalidChannelError } from '../../src/memory/paths';
import { channelPaths } from '../../src/memory/layout';
import { parseMemory } from '../../src/memory/entries';
import { TEMPLATES } from '../../src/memory/templates';
import { makeTmpDir } from '../helpers/tmp';
import { withChannelLock } from '../../src/memory/lock';

const ref: ChannelRef = { kind: 'discord', guildId: '111111111111111111', channelId: '222222222222222222' };
let tmp: ReturnType<typeof makeTmpDir>;
let store: ChannelStore;
beforeEach(() => {
  tmp = makeTmpDir();
  store = new ChannelStore({ root: tmp.dir, clock: () => new Date('2026-11-21T12:00:00Z') });
});
afterEach(() => tmp.cleanup());

describe('layout and templates', () => {
  it('creates the folder and the four files on first use, thread state under threads/', async () => {
    const thread: ChannelRef = { ...ref, threadId: '333333333333333333' } as ChannelRef;
    const p = await store.ensureChannel(thread);
    for (const f of ['CONTEXT.md', 'MEMORY.md', 'HISTORY.md']) {
      expect(fs.readFileSync(path.join(tmp.dir, '111111111111111111/222222222222222222', f), 'utf8')).toBe(TEMPLATES[f as keyof typeof TEMPLATES]);
    }
    expect(p.session).toBe(path.join(tmp.dir, '111111111111111111/222222222222222222/threads/333333333333333333/SESSION.md'));
    expect(fs.existsSync(p.session)).toBe(true);
    expect(p.queueKey).toBe(store.paths(ref).queueKey);
  });

  it('ensureChannelSoon creates a burst of new channels a few at a time, in the background, without holding up ensureChannel', async () => {
    const refs = Array.from({ length: 40 }, (_, i) => ({ ...ref, channelId: String(300000000000000000n + BigInt(i)) }) as ChannelRef);
    const direct = store.paths(refs[39]).convDir;
    let running = 0;
    let most = 0;
    let queued = 0;
    const ensure = ChannelFolders.prototype.ensure;
    jest.spyOn(ChannelFolders.prototype, 'ensure').mockImplementation(async function (this: ChannelFolders, p) {
      // The direct call below is not one of the background lanes.
      if (p.convDir === direct) return ensure.call(this, p);
      queued++;
      running++;
      most = Math.max(most, running);
      try {
        return await ensure.call(this, p);
      } finally {
        running--;
      }
    });
    for (const r of refs) store.ensureChannelSoon(r);
    store.ensureChannelSoon(refs[0]); // asked again while queued: once
    const contextOf = (r: ChannelRef) => store.paths(r).context;
    // A caller that needs the folder now does not wait behind the queue.
    await store.ensureChannel(refs[39]);
    expect(refs.filter((r) => fs.existsSync(contextOf(r))).length).toBeLessThan(refs.length);
    await store.idle();
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(4);
    expect(queued).toBe(39);
    for (const r of refs) expect(fs.readFileSync(contextOf(r), 'utf8')).toBe(TEMPLATES['CONTEXT.md']);
    jest.restoreAllMocks();
  });

  it('with a lull, background first contact waits for it; a caller that needs the folder now does not', async () => {
    let open!: () => void;
    const lull = new Promise<void>((resolve) => (open = resolve));
    const gated = new ChannelStore({ root: tmp.dir, lull: () => lull });
    const refs = Array.from({ length: 3 }, (_, i) => ({ ...ref, channelId: String(400000000000000000n + BigInt(i)) }) as ChannelRef);
    for (const r of refs) gated.ensureChannelSoon(r);
    await gated.ensureChannel(refs[2]);
    // A few turns of the event loop and of libuv's threads: nothing queued may have started.
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 5));
    expect(fs.existsSync(gated.paths(refs[0]).context)).toBe(false);
    expect(fs.existsSync(gated.paths(refs[1]).context)).toBe(false);
    expect(fs.readFileSync(gated.paths(refs[2]).context, 'utf8')).toBe(TEMPLATES['CONTEXT.md']);
    open();
    await gated.idle();
    for (const r of refs) expect(fs.readFileSync(gated.paths(r).context, 'utf8')).toBe(TEMPLATES['CONTEXT.md']);
  });

  it('migrates a folder that has only MEMORY.md and HISTORY.md without touching them', async () => {
    const dir = path.join(tmp.dir, 'local', 'old');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), '- my old fact\n');
    fs.writeFileSync(path.join(dir, 'HISTORY.md'), '## 2025-01-01\nold times\n');
    await store.ensureChannel({ kind: 'local', name: 'old' });
    expect(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8')).toBe('- my old fact\n');
    expect(fs.readFileSync(path.join(dir, 'HISTORY.md'), 'utf8')).toBe('## 2025-01-01\nold times\n');
    expect(fs.readFileSync(path.join(dir, 'CONTEXT.md'), 'utf8')).toBe(TEMPLATES['CONTEXT.md']);
    expect(fs.existsSync(path.join(dir, 'SESSION.md'))).toBe(true);
  });

  it('reading never creates anything', async () => {
    expect(await store.read(ref, 'MEMORY.md')).toBeNull();
    expect(fs.readdirSync(tmp.dir)).toEqual([]);
  });

  it.each([
    [{ kind: 'local', name: '../etc' }],
    [{ kind: 'local', name: 'a/b' }],
    [{ kind: 'local', name: 'Upper' }],
    [{ kind: 'local', name: '' }],
    [{ kind: 'discord', guildId: '..', channelId: '1' }],
    [{ kind: 'discord', guildId: '1', channelId: '2/3' }],
    [{ kind: 'discord', guildId: '1', channelId: '2', threadId: 'x' }],
  ])('rejects %j with a clear error', (bad) => {
    expect(() => channelPaths(tmp.dir, bad as ChannelRef)).toThrow(InvalidChannelError);
    expect(() => channelPaths(tmp.dir, bad as ChannelRef)).toThrow(/invalid (channel|guild|thread)/);
  });
});

describe('writes', () => {
  it('round-trips operations through MEMORY.md', async () => {
    await store.ensureChannel(ref);
    const r = await store.applyMemoryOps(ref, [{ op: 'add', text: 'We ship on Thursdays', source: 'discord' }]);
    const text = (await store.read(ref, 'MEMORY.md'))!;
    const entry = parseMemory(text).find((l) => l.id === r.applied[0].id)!;
    expect(entry).toMatchObject({ text: 'We ship on Thursdays', source: 'discord', date: '2026-11-21' });
  });

  it('concurrent writers on one channel lose nothing', async () => {
    await store.ensureChannel(ref);
    const other = new ChannelStore({ root: tmp.dir, queue: store.queue });
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? store : other).applyMemoryOps(ref, [{ op: 'add', text: `distinct fact number ${i} about topic ${i * 7}`, source: 't' }]),
      ),
    );
    const entries = parseMemory((await store.read(ref, 'MEMORY.md'))!).filter((l) => l.kind === 'entry');
    expect(entries).toHaveLength(40);
    expect(new Set(entries.map((e) => e.id)).size).toBe(40);
  });

  it('two stores in one process with separate queues still lose nothing (lock file)', async () => {
    await store.ensureChannel(ref);
    const separate = new ChannelStore({ root: tmp.dir });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? store : separate).applyMemoryOps(ref, [{ op: 'add', text: `fact ${i} concerning widget ${i * 13}`, source: 't' }]),
      ),
    );
    const entries = parseMemory((await store.read(ref, 'MEMORY.md'))!).filter((l) => l.kind === 'entry');
    expect(entries).toHaveLength(20);
  });

  it('keeps a human edit made between the read and the write', async () => {
    const p = await store.ensureChannel(ref);
    let calls = 0;
    await store.update(ref, 'MEMORY.md', (current) => {
      calls++;
      if (calls === 1) fs.appendFileSync(p.memory, '- added by a person mid-write\n');
      return current + '- added by the bot\n';
    });
    const text = fs.readFileSync(p.memory, 'utf8');
    expect(text).toContain('- added by a person mid-write');
    expect(text).toContain('- added by the bot');
    expect(calls).toBe(2);
  });

  it('refuses a rewrite that would more than halve a file, and keeps backups', async () => {
    const p = await store.ensureChannel(ref);
    const big = '# Channel Memory\n\n' + Array.from({ length: 30 }, (_, i) => `- fact ${i} ${'y'.repeat(20)}`).join('\n') + '\n';
    await store.update(ref, 'MEMORY.md', () => big);
    await expect(store.update(ref, 'MEMORY.md', () => '# Channel Memory\n')).rejects.toThrow(StoreError);
    await expect(store.update(ref, 'MEMORY.md', () => '# Channel Memory\n')).rejects.toThrow(/shrink/);
    expect(fs.readFileSync(p.memory, 'utf8')).toBe(big);
    const backups = fs.readdirSync(path.join(p.channelStateDir, 'backups'));
    expect(backups.some((b) => b.startsWith('MEMORY.md.'))).toBe(true);
  });

  it('an explicit forget may shrink a file, and leaves a tombstone without the text', async () => {
    const p = await store.ensureChannel(ref);
    const r = await store.applyMemoryOps(ref, [{ op: 'add', text: 'The launch codename is Bluebird '.repeat(20), source: 't' }]);
    const f = await store.applyMemoryOps(ref, [{ op: 'forget', id: r.applied[0].id }]);
    expect(f.forgotten).toHaveLength(1);
    const stones = fs.readFileSync(path.join(p.channelStateDir, 'tombstones.jsonl'), 'utf8');
    expect(stones).not.toMatch(/Bluebird|launch/i);
    expect(JSON.parse(stones.trim())).toMatchObject({ id: r.applied[0].id, hash: expect.any(String) });
    const again = await store.applyMemoryOps(ref, [{ op: 'add', text: 'the launch codename is Bluebird', source: 'upkeep' }]);
    expect(again.applied).toHaveLength(0);
  });

  it('an unreadable file gives a clear error, not a crash', async () => {
    const p = await store.ensureChannel(ref);
    fs.rmSync(p.memory);
    fs.mkdirSync(p.memory); // EISDIR whatever the user's privileges
    await expect(store.read(ref, 'MEMORY.md')).rejects.toThrow(/cannot read .*MEMORY\.md.*permissions/);
    await expect(store.applyMemoryOps(ref, [{ op: 'add', text: 'x y z', source: 't' }])).rejects.toThrow(StoreError);
    // The queue is not poisoned: other writes still run.
    await expect(store.update(ref, 'HISTORY.md', (c) => c + '\n## 2026-11-21\nok\n')).resolves.toMatchObject({ changed: true });
  });

  it('malformed markdown is still handled line by line', async () => {
    const p = await store.ensureChannel(ref);
    fs.writeFileSync(p.memory, '\u0000\u0001 binary-ish\n```\nunclosed fence\n- ~~[m-zzzzzz] struck~~ →\n####### too deep\n');
    const r = await store.applyMemoryOps(ref, [{ op: 'add', text: 'A sane fact', source: 't' }]);
    expect(r.applied).toHaveLength(1);
    const text = fs.readFileSync(p.memory, 'utf8');
    expect(text).toContain('unclosed fence');
    expect(text).toContain('A sane fact');
  });
});

describe('logs and private state', () => {
  it('a burst of appends to one log keeps every line, in call order, each whole', async () => {
    const log = store.paths(ref).log;
    const n = 300;
    const writes = Array.from({ length: n }, (_, i) => store.appendJsonl(log, { i, text: 'x'.repeat(i % 50) }));
    await Promise.all(writes);
    await store.appendJsonl(log, { i: n, text: 'after' });
    const lines = fs
      .readFileSync(log, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { i: number });
    expect(lines.map((l) => l.i)).toEqual(Array.from({ length: n + 1 }, (_, i) => i));
  });

  it('private state: writes of one file land in call order, each as it was when asked; idle waits for them', async () => {
    const file = path.join(store.paths(ref).stateDir, 'conversation.json');
    const state = { n: 0 };
    for (let i = 1; i <= 20; i++) {
      state.n = i;
      void store.writePrivateState(file, state);
    }
    state.n = 999; // changed after the last write was asked for: not written
    await store.idle();
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ n: 20 });
  });

  it('an append waits for nothing but its own write: shutdown (idle) sees every line on disk', async () => {
    const log = store.paths(ref).log;
    for (let i = 0; i < 50; i++) void store.appendJsonl(log, { i });
    await store.idle();
    expect(fs.readFileSync(log, 'utf8').trimEnd().split('\n')).toHaveLength(50);
  });

  it('a log whose folder a person removed between two appends gets the folder back and the line', async () => {
    const log = store.paths(ref).log;
    await store.appendJsonl(log, { i: 1 });
    fs.rmSync(path.dirname(log), { recursive: true });
    await store.appendJsonl(log, { i: 2 });
    expect(fs.readFileSync(log, 'utf8')).toBe('{"i":2}\n');
  });

  it('private state is written even before the channel folder exists', async () => {
    const file = path.join(store.paths(ref).stateDir, 'conversation.json');
    expect(fs.existsSync(path.dirname(file))).toBe(false);
    await store.writePrivateState(file, { version: 1, turns: [] });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ version: 1, turns: [] });
  });
});

describe('the channel lock', () => {
  it('a lock lost while held is reported, not ignored, and the task still finishes', async () => {
    const dir = path.join(tmp.dir, '.minutes');
    const lost: string[] = [];
    const result = await withChannelLock(
      dir,
      async () => {
        // Another process "takes over": the lock folder disappears under the holder.
        fs.rmSync(path.join(dir, 'lock'), { recursive: true, force: true });
        await new Promise((r) => setTimeout(r, 1_500));
        return 'done';
      },
      { staleMs: 2_000, onLost: (err) => lost.push(err.message) },
    );
    expect(result).toBe('done');
    expect(lost).toHaveLength(1);
  });
});

describe('crash safety', () => {
  it('a writer killed at any moment leaves the old file or the new one, never a mix', async () => {
    const root = tmp.dir;
    const file = path.join(root, 'local', 'crash', 'MEMORY.md');
    for (let round = 0; round < 6; round++) {
      const child = spawn(
        process.execPath,
        ['-r', path.join(__dirname, '../helpers/register-ts.js'), path.join(__dirname, 'fixtures/write-loop.js'), root, 'crash'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let childErr = '';
      child.stderr!.on('data', (d) => {
        childErr += d;
      });
      await new Promise<void>((resolve, reject) => {
        child.stdout!.once('data', () => resolve());
        child.once('exit', () => reject(new Error(`writer exited early: ${childErr}`)));
      });
      await new Promise((r) => setTimeout(r, 30 + Math.random() * 120));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      // The killed writer's lock stays behind; a lock older than its staleness limit is treated
      // as abandoned. Age it instead of waiting out the limit.
      const lock = path.join(root, 'local', 'crash', '.minutes', 'lock');
      if (fs.existsSync(lock)) fs.utimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      const text = fs.readFileSync(file, 'utf8');
      if (text.startsWith('# Channel Memory\n\n## Durable Facts\n\n- [m-')) {
        const version = /version (\d+)/.exec(text)![1];
        expect(text.trimEnd().endsWith(`END ${version}`)).toBe(true);
      } else {
        expect(text).toBe(TEMPLATES['MEMORY.md']);
      }
      const leftovers = fs.readdirSync(path.dirname(file)).filter((f) => !['MEMORY.md', 'CONTEXT.md', 'SESSION.md', 'HISTORY.md', '.minutes'].includes(f));
      // A temp file may survive a SIGKILL, but it is never the file a reader opens.
      expect(leftovers.every((f) => f.startsWith('.MEMORY.md.minutes-tmp-'))).toBe(true);
    }
  });
});
