import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log/logger';
import { readTextIfExists, stageWrite } from '../../src/memory/atomicWrite';
import { foldHistoryIfLarge } from '../../src/memory/history';
import type { ChannelRef } from '../../src/memory/paths';
import { ChannelStore } from '../../src/memory/store';
import { StoreError } from '../../src/memory/storeErrors';
import { ConversationState } from '../../src/shared/conversation';
import { makeTmpDir } from '../helpers/tmp';

const ref: ChannelRef = { kind: 'discord', guildId: '111111111111111111', channelId: '222222222222222222' };
const NOW = new Date('2026-11-21T12:00:00Z');
let tmp: ReturnType<typeof makeTmpDir>;
let lines: string[];
/** Runs once, on the next call of the store's clock: a hook into the middle of a write. */
let onNextClock: (() => void) | undefined;
let store: ChannelStore;

function capture(): Writable {
  return new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
}

beforeEach(() => {
  tmp = makeTmpDir();
  lines = [];
  onNextClock = undefined;
  const clock = () => {
    const hook = onNextClock;
    onNextClock = undefined;
    hook?.();
    return NOW;
  };
  store = new ChannelStore({ root: tmp.dir, clock, logger: createLogger({ format: 'json', destination: capture() }) });
});
afterEach(() => tmp.cleanup());

describe('a person editing a file while Minutes writes it', () => {
  it('keeps a line added to MEMORY.md during the backup and the fsyncs of a write', async () => {
    const p = await store.ensureChannel(ref);
    let clockCalls = 0;
    // applyMemoryOps reads the clock once for the entry's date; the second call is the backup's stamp.
    onNextClock = () => {
      onNextClock = () => {
        clockCalls++;
        fs.appendFileSync(p.memory, '- typed by a person mid-write\n');
      };
    };
    await store.applyMemoryOps(ref, [{ op: 'add', text: 'We deploy from the main branch', source: 't' }]);
    expect(clockCalls).toBe(1);
    const text = fs.readFileSync(p.memory, 'utf8');
    expect(text).toContain('typed by a person mid-write');
    expect(text).toContain('We deploy from the main branch');
  });

  it('keeps a block added to HISTORY.md while a fold writes the archive', async () => {
    const p = await store.ensureChannel(ref);
    const blocks = Array.from({ length: 12 }, (_, i) => `## 2026-10-${String(i + 1).padStart(2, '0')} — Day ${i + 1}\n\n${`word${i} `.repeat(250).trim()}`);
    fs.writeFileSync(p.history, `# History\n\n${blocks.join('\n\n')}\n`);
    fs.writeFileSync(p.historyArchive, '## 2026-01-01 — Older\n\nalready archived\n');
    // The archive's backup reads the clock: a person appends a block to HISTORY.md right then.
    onNextClock = () => fs.appendFileSync(p.history, "\n## 2026-11-21 — Added by a person\n\nthe person's notes\n");
    expect(await foldHistoryIfLarge(store, ref, NOW)).toBe(true);
    const history = fs.readFileSync(p.history, 'utf8');
    const archive = fs.readFileSync(p.historyArchive, 'utf8');
    expect(history).toContain('Added by a person');
    expect(history).toContain("the person's notes");
    expect(history).toContain('Folded history (4 blocks)');
    expect(history).not.toContain('## 2026-10-01 — Day 1');
    expect(archive).toContain('## 2026-10-01 — Day 1\n');
    expect(archive).not.toContain('Added by a person');
  });
});

describe('text that is not valid UTF-8', () => {
  it('is refused, with one clear log line, and its bytes are kept', async () => {
    const p = await store.ensureChannel(ref);
    const raw = Buffer.concat([Buffer.from('# Channel Memory\n\n- caf'), Buffer.from([0xe9]), Buffer.from(' au lait (Latin-1)\n')]);
    fs.writeFileSync(p.memory, raw);
    const op = store.applyMemoryOps(ref, [{ op: 'add', text: 'A new fact about billing', source: 't' }]);
    await expect(op).rejects.toThrow(StoreError);
    await expect(store.applyMemoryOps(ref, [{ op: 'add', text: 'A new fact about billing', source: 't' }])).rejects.toThrow(
      /MEMORY\.md is not valid UTF-8.*re-save it as UTF-8/,
    );
    expect(fs.readFileSync(p.memory).equals(raw)).toBe(true);
    const backups = path.join(p.channelStateDir, 'backups');
    expect(fs.existsSync(backups) ? fs.readdirSync(backups) : []).toEqual([]);
    expect(lines.filter((l) => /MEMORY\.md is not valid UTF-8/.test(l))).toHaveLength(2);
  });

  it('a byte-order mark survives a rewrite', async () => {
    const p = await store.ensureChannel(ref);
    fs.writeFileSync(p.memory, '\uFEFF# Channel Memory\n\n- an old fact about the office\n');
    await store.applyMemoryOps(ref, [{ op: 'add', text: 'A new fact about billing', source: 't' }]);
    expect(
      fs
        .readFileSync(p.memory)
        .subarray(0, 3)
        .equals(Buffer.from([0xef, 0xbb, 0xbf])),
    ).toBe(true);
  });
});

describe('reading a file that may not exist', () => {
  it("is null only when there is no such file; any other failure is the read's own error", async () => {
    const file = path.join(tmp.dir, 'state.json');
    expect(await readTextIfExists(file)).toBeNull();
    fs.writeFileSync(file, '{"a":1}\n');
    expect(await readTextIfExists(file)).toBe('{"a":1}\n');
    // A file where a folder should be, and a folder where a file should be: errors, not "missing".
    await expect(readTextIfExists(path.join(file, 'inside.json'))).rejects.toMatchObject({ code: 'ENOTDIR' });
    await expect(readTextIfExists(tmp.dir)).rejects.toMatchObject({ code: 'EISDIR' });
  });
});

describe('the lock', () => {
  it('a regular file named .minutes/lock is removed with a log line, and the write goes through at once', async () => {
    const p = await store.ensureChannel(ref);
    fs.writeFileSync(path.join(p.channelStateDir, 'lock'), 'left by a sync tool');
    fs.utimesSync(path.join(p.channelStateDir, 'lock'), new Date(0), new Date(0));
    const started = Date.now();
    await store.applyMemoryOps(ref, [{ op: 'add', text: 'The lock file does not block us', source: 't' }]);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(fs.readFileSync(p.memory, 'utf8')).toContain('The lock file does not block us');
    expect(lines.filter((l) => /lock must be a folder/.test(l))).toHaveLength(1);
  }, 10_000);
});

describe('temp files left by a crash', () => {
  it('are removed on the first write in a process when older than a minute; anything else stays', async () => {
    const first = await store.ensureChannel(ref);
    const old = new Date(Date.now() - 5 * 60_000);
    const make = (file: string, age = old) => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, 'x');
      fs.utimesSync(file, age, age);
      return file;
    };
    const backups = path.join(first.channelStateDir, 'backups');
    const tmpOf = (file: string, hex: string) => path.join(path.dirname(file), `.${path.basename(file)}.minutes-tmp-${hex}`);
    const leftovers = [
      make(tmpOf(first.memory, 'a1b2c3d4e5f6')),
      make(tmpOf(first.history, '0123456789ab')),
      make(tmpOf(path.join(backups, 'MEMORY.md.2026-11-21T12-00-00-000Z.bak'), 'ffffffffffff')),
      make(tmpOf(path.join(first.channelStateDir, 'ledger.json'), 'abcdefabcdef')),
      make(tmpOf(path.join(first.condensations, '2026-11-20-database.md'), '123123123123')),
      // Left by versions that wrote with write-file-atomic, in the bot's own folders only.
      make(path.join(first.channelStateDir, 'ledger.json.2718281828')),
      make(path.join(backups, 'MEMORY.md.2026-11-21T12-00-00-000Z.bak.3141592653')),
    ];
    const kept = [
      make(tmpOf(first.session, '987654321abc'), new Date()), // young: may be another process's write in flight
      make(`${first.memory}.20250101`), // a person's dated copy
      make(path.join(first.condensations, '2026-11-20-database.md.2')),
      make(path.join(first.channelDir, 'notes.md.2')),
      make(path.join(first.channelDir, 'MEMORY.md.old')),
      make(path.join(backups, 'MEMORY.md.2026-11-20T12-00-00-000Z.bak')),
    ];
    const restarted = new ChannelStore({ root: tmp.dir, clock: () => NOW });
    await restarted.ensureChannel(ref);
    for (const f of leftovers) expect([f, fs.existsSync(f)]).toEqual([f, false]);
    for (const f of kept) expect([f, fs.existsSync(f)]).toEqual([f, true]);
  });
});

describe('symlinked memory files', () => {
  it('a write goes through the link to its target; the link stays', async () => {
    const p = await store.ensureChannel(ref);
    const shared = path.join(tmp.dir, 'shared-MEMORY.md');
    fs.writeFileSync(shared, '# Shared memory\n\n- Deploys go through CI\n');
    fs.rmSync(p.memory);
    fs.symlinkSync(shared, p.memory);
    await store.applyMemoryOps(ref, [{ op: 'add', text: 'Staging lives at staging.example.org', source: 's' }]);
    expect(fs.lstatSync(p.memory).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(shared, 'utf8')).toContain('Staging lives at staging.example.org');
    expect(fs.readdirSync(tmp.dir).filter((n) => n.includes('minutes-tmp'))).toEqual([]);
  });
});

describe('state files', () => {
  it('an unparsable conversation file is started afresh but its text is kept beside it', async () => {
    const p = await store.ensureChannel(ref);
    const file = path.join(p.stateDir, 'conversation.json');
    fs.writeFileSync(file, '{"version":1,"turns":[{"role":"user","content":"the only copy of this turn"},]}');
    expect(await store.readState(file, ConversationState)).toBeNull();
    expect(fs.readFileSync(`${file}.unreadable`, 'utf8')).toContain('the only copy of this turn');
    expect(lines.join('')).toContain('kept beside it');
    await store.writeState(ref, file, { version: 1, turns: [] });
    expect(fs.readFileSync(`${file}.unreadable`, 'utf8')).toContain('the only copy of this turn');
  });

  it('a template is placed only where no file exists, even one created after the check', async () => {
    const file = path.join(tmp.dir, 'MEMORY.md');
    const staged = await stageWrite(file, '# template\n');
    // A person's file lands between the bot's "is it missing?" and the template being placed.
    fs.writeFileSync(file, '# My memory\n\n- written by hand\n');
    expect(await staged.commitIfAbsent()).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('# My memory\n\n- written by hand\n');
    const other = path.join(tmp.dir, 'SESSION.md');
    expect(await (await stageWrite(other, '# template\n')).commitIfAbsent()).toBe(true);
    expect(fs.readFileSync(other, 'utf8')).toBe('# template\n');
    expect(fs.readdirSync(tmp.dir).sort()).toEqual(['MEMORY.md', 'SESSION.md']);
  });
});
