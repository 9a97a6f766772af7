import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../../src/log/logger';
import { SourceCache } from '../../src/recall/sources';
import { createRecall } from '../../src/recall/lexical';
import { makeTmpDir } from '../helpers/tmp';

/**
 * Recall re-stats a condensations folder's files only when the folder changed or a moment has
 * passed: a year's ~300 files stat-ed on every message was most of a recall's time.
 */
describe('the condensation sources recall reads', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let now: number;
  let cache: SourceCache;
  const cond = () => path.join(tmp.dir, 'condensations');
  const write = (name: string, text: string) => fs.writeFileSync(path.join(cond(), name), text);
  const list = () => cache.listSources([tmp.dir]);
  beforeEach(() => {
    tmp = makeTmpDir();
    fs.mkdirSync(cond());
    fs.writeFileSync(path.join(tmp.dir, 'MEMORY.md'), '# Channel Memory\n');
    write('2026-01-01-a.md', '## 📝 Condensation: a\n\n**Decision:** Use Kafka.\n');
    now = 1_000;
    cache = new SourceCache(silentLogger(), fs, () => now);
  });
  afterEach(() => tmp.cleanup());

  it('sees a file written the way Minutes writes (temp file, then rename) at once', () => {
    const before = list();
    expect(before.files.map((f) => f.label)).toEqual(['MEMORY.md', 'condensations/2026-01-01-a.md']);
    fs.writeFileSync(path.join(cond(), '.tmp-b'), '## 📝 Condensation: b\n\n**Decision:** Use Redis.\n');
    fs.renameSync(path.join(cond(), '.tmp-b'), path.join(cond(), '2026-01-02-b.md'));
    const after = list();
    expect(after.files.map((f) => f.label)).toContain('condensations/2026-01-02-b.md');
    expect(after.key).not.toBe(before.key);
  });

  it('sees a file replaced by rename at once, and an edit made in place within two seconds', () => {
    const first = list();
    // Replaced by rename: the folder changes, so the change is seen on the next call.
    fs.writeFileSync(path.join(cond(), '.tmp-a'), '## 📝 Condensation: a\n\n**Decision:** Use Kafka 3.\n');
    fs.renameSync(path.join(cond(), '.tmp-a'), path.join(cond(), '2026-01-01-a.md'));
    const renamed = list();
    expect(renamed.key).not.toBe(first.key);
    // Edited in place (the folder does not change): the stats are reused for up to 2 s.
    fs.appendFileSync(path.join(cond(), '2026-01-01-a.md'), '\n**Rationale:** throughput.\n');
    now += 500;
    expect(list().key).toBe(renamed.key);
    now += 1_600;
    const edited = list();
    expect(edited.key).not.toBe(renamed.key);
    expect(edited.files.find((f) => f.label.endsWith('a.md'))?.size).toBe(fs.statSync(path.join(cond(), '2026-01-01-a.md')).size);
  });

  it('does not re-stat the condensations when a thread and its channel are recalled by turns', () => {
    const thread = path.join(tmp.dir, 'threads', 't1');
    fs.mkdirSync(thread, { recursive: true });
    let condStats = 0;
    const counting = {
      ...fs,
      statSync: ((p: fs.PathLike, o?: fs.StatSyncOptions) => {
        if (String(p).includes(`condensations${path.sep}`)) condStats++;
        return fs.statSync(p, o);
      }) as typeof fs.statSync,
    };
    cache = new SourceCache(silentLogger(), counting, () => now);
    const both = () => [cache.listSources([thread, tmp.dir]), cache.listSources([tmp.dir])];
    both();
    expect(condStats).toBe(2);
    both();
    both();
    expect(condStats).toBe(2);
  });

  it('stats MEMORY.md on every call: an edit there is never missed', () => {
    const first = list();
    fs.appendFileSync(path.join(tmp.dir, 'MEMORY.md'), '- [m-aaaa01] A fact [from: t, 2026-01-01]\n');
    expect(list().key).not.toBe(first.key);
  });
});

describe('the recall indexes kept', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  afterEach(() => tmp.cleanup());

  it('keeps each conversation its index while another is used, and rebuilds one whose files changed', () => {
    tmp = makeTmpDir();
    const dirs = ['a', 'b'].map((n) => {
      const d = path.join(tmp.dir, n);
      fs.mkdirSync(d);
      fs.writeFileSync(path.join(d, 'MEMORY.md'), `# Channel Memory\n\n- [m-aaaa0${n === 'a' ? 1 : 2}] The ${n} service uses Kafka [from: t, 2026-01-01]\n`);
      return d;
    });
    const recall = createRecall();
    const a = recall.indexOf({ channelDirs: [dirs[0]] });
    const b = recall.indexOf({ channelDirs: [dirs[1]] });
    // Back to the first conversation: its index is the one built before, not a rebuild.
    expect(recall.indexOf({ channelDirs: [dirs[0]] })).toBe(a);
    expect(recall.indexOf({ channelDirs: [dirs[1]] })).toBe(b);
    fs.appendFileSync(path.join(dirs[0], 'MEMORY.md'), '- [m-aaaa03] The a service moves to Redis [from: t, 2026-02-01]\n');
    const a2 = recall.indexOf({ channelDirs: [dirs[0]] });
    expect(a2).not.toBe(a);
    expect(a2.cands.map((c) => c.body)).toContain('The a service moves to Redis');
  });
});

describe("the workspace's MEMORY.md", () => {
  it('is stat-ed once a second for every channel, not on every turn, and an edit shows after that', () => {
    const tmp = makeTmpDir();
    try {
      const ws = path.join(tmp.dir, 'workspace');
      fs.mkdirSync(ws);
      fs.writeFileSync(path.join(ws, 'MEMORY.md'), '# Workspace Memory\n');
      const chans = ['a', 'b', 'c'].map((n) => path.join(tmp.dir, n));
      for (const c of chans) fs.mkdirSync(c);
      let wsStats = 0;
      const counting = {
        ...fs,
        statSync: ((p: fs.PathLike, o?: fs.StatSyncOptions) => {
          if (String(p).startsWith(ws)) wsStats++;
          return fs.statSync(p, o);
        }) as typeof fs.statSync,
      };
      let now = 0;
      const cache = new SourceCache(silentLogger(), counting, () => now);
      const keys = () => chans.map((c) => cache.listSources([c], ws).key);
      const before = keys();
      for (let k = 0; k < 5; k++) keys();
      expect(wsStats).toBe(1);
      fs.appendFileSync(path.join(ws, 'MEMORY.md'), '- [m-aaaa01] Everyone uses UTC [from: t, 2026-01-01]\n');
      now += 1_000;
      const after = keys();
      expect(wsStats).toBe(2);
      expect(after[0]).not.toBe(before[0]);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('a memory file that cannot be read', () => {
  it('costs that file only: its candidates are none, the others are kept', () => {
    const tmp = makeTmpDir();
    try {
      fs.writeFileSync(path.join(tmp.dir, 'MEMORY.md'), '# Channel Memory\n\n- [m-aaaa01] Priya owns the auth service [from: t, 2026-01-01]\n');
      fs.mkdirSync(path.join(tmp.dir, 'condensations'));
      fs.writeFileSync(
        path.join(tmp.dir, 'condensations', '2026-02-01-y.md'),
        '## 📝 Condensation: auth\n\n**Decision:** Priya owns the auth service token rotation.\n',
      );
      // Unreadable as a non-root user would see it, simulated so the test holds as root too.
      const eacces = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      const unreadable = {
        ...fs,
        readFileSync: ((p: fs.PathOrFileDescriptor, o?: unknown) => {
          if (String(p).endsWith('MEMORY.md')) throw eacces;
          return fs.readFileSync(p, o as BufferEncoding);
        }) as typeof fs.readFileSync,
      };
      const warnings: unknown[] = [];
      const logger = { ...silentLogger(), warn: (o: unknown) => void warnings.push(o) } as unknown as ReturnType<typeof silentLogger>;
      const cache = new SourceCache(logger, unreadable);
      const { files } = cache.listSources([tmp.dir]);
      const byLabel = Object.fromEntries(files.map((f) => [f.label, cache.candidates(f).map((c) => c.body)]));
      expect(byLabel['MEMORY.md']).toEqual([]);
      expect(byLabel['condensations/2026-02-01-y.md'].join(' ')).toContain('token rotation');
      expect(warnings.length).toBe(1);
    } finally {
      tmp.cleanup();
    }
  });
});
