import fs from 'node:fs';
import path from 'node:path';
import { StatCachedFiles, WORKSPACE_RESTAT_MS } from '../../src/memory/statCachedFiles';
import { makeTmpDir } from '../helpers/tmp';

describe('the files every prompt carries (CONTEXT.md, SOUL.md, AGENTS.md)', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let now: number;
  let unreadable: string[];
  let files: StatCachedFiles;
  beforeEach(() => {
    tmp = makeTmpDir();
    now = 1_000;
    unreadable = [];
    files = new StatCachedFiles({ onUnreadable: (f) => unreadable.push(f), monotonicMs: () => now });
  });
  afterEach(() => tmp.cleanup());

  it('reuses a workspace file stat for a second: a hand edit shows within it, not on every turn', () => {
    const soul = path.join(tmp.dir, 'SOUL.md');
    fs.writeFileSync(soul, 'You are terse.\n');
    expect(files.read(soul, WORKSPACE_RESTAT_MS)).toBe('You are terse.\n');
    fs.writeFileSync(soul, 'You are terse and kind.\n');
    now += WORKSPACE_RESTAT_MS / 2;
    // Not stat-ed again yet: the text read a moment ago stands.
    expect(files.read(soul, WORKSPACE_RESTAT_MS)).toBe('You are terse.\n');
    now += WORKSPACE_RESTAT_MS;
    expect(files.read(soul, WORKSPACE_RESTAT_MS)).toBe('You are terse and kind.\n');
    // A file created later shows the same way; an absent one is not stat-ed every turn either.
    const agents = path.join(tmp.dir, 'AGENTS.md');
    expect(files.read(agents, WORKSPACE_RESTAT_MS)).toBeNull();
    fs.writeFileSync(agents, 'No emojis.\n');
    expect(files.read(agents, WORKSPACE_RESTAT_MS)).toBeNull();
    now += WORKSPACE_RESTAT_MS;
    expect(files.read(agents, WORKSPACE_RESTAT_MS)).toBe('No emojis.\n');
  });

  it("stats a channel's CONTEXT.md on every read: the bot's own writes show at once", () => {
    const context = path.join(tmp.dir, 'CONTEXT.md');
    fs.writeFileSync(context, '# Channel Context\n');
    expect(files.read(context)).toBe('# Channel Context\n');
    fs.writeFileSync(context, '# Channel Context\n\n- Ship on Friday\n');
    expect(files.read(context)).toBe('# Channel Context\n\n- Ship on Friday\n');
    fs.rmSync(context);
    expect(files.read(context)).toBeNull();
  });

  it('keeps a bounded number of texts over 5,000 channels, and re-reads an evicted one correctly', () => {
    const body = 'x'.repeat(4_000);
    const paths: string[] = [];
    for (let i = 0; i < 5_000; i++) {
      const f = path.join(tmp.dir, `c${i}.md`);
      fs.writeFileSync(f, `${i}\n${body}`);
      paths.push(f);
      expect(files.read(f)).toBe(`${i}\n${body}`);
    }
    // 16 MB of UTF-16 text: ~2,000 texts of 8 KB, never all 5,000.
    expect(files.size).toBeLessThanOrEqual(Math.ceil((16 * 1024 * 1024) / (body.length * 2)));
    expect(files.size).toBeGreaterThan(1_000);
    expect(files.read(paths[0])).toBe(`0\n${body}`);
    expect(unreadable).toEqual([]);
  });
});
