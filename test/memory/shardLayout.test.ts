import fs from 'node:fs';
import path from 'node:path';
import { shardLayoutFile } from '../../src/memory/layout';
import { claimShardLayout, formatShardList, layoutChange, parseShardList, readShardLayout, type ShardLayout } from '../../src/memory/shardLayout';
import { makeTmpDir } from '../helpers/tmp';

const all = (total: number): ShardLayout => ({ total, shards: Array.from({ length: total }, (_, i) => i) });

describe('shard lists as the CLI spells them', () => {
  it('reads ids and ranges, sorted without repeats, and writes them back the same way', () => {
    expect(parseShardList('0-3,8')).toEqual({ ids: [0, 1, 2, 3, 8] });
    expect(parseShardList('8,2-3,3,0')).toEqual({ ids: [0, 2, 3, 8] });
    expect(parseShardList('5')).toEqual({ ids: [5] });
    expect(formatShardList([0, 1, 2, 3, 8])).toBe('0-3,8');
    expect(formatShardList([9, 4, 5, 7, 5])).toBe('4-5,7,9');
    expect(formatShardList([0])).toBe('0');
    for (const text of ['0-3,8', '1,3,5-9,12', '0']) {
      const parsed = parseShardList(text);
      expect('ids' in parsed && formatShardList(parsed.ids)).toBe(text);
    }
  });

  it('says what is wrong with a bad list', () => {
    expect(parseShardList('3-1')).toEqual({ problem: 'the range 3-1 runs backwards' });
    expect(parseShardList('0,,2')).toEqual({ problem: '"" is not a shard id or a range such as 0-3' });
    expect(parseShardList('a-b')).toEqual({ problem: '"a-b" is not a shard id or a range such as 0-3' });
    expect(parseShardList('0-100000')).toEqual({ problem: 'shard 100000 is beyond 99999' });
  });
});

describe('whether a data root may start a shard layout', () => {
  it('a data root that recorded nothing, or ran every shard, may start any layout', () => {
    expect(layoutChange(null, { total: 16, shards: [0, 1] }, false)).toEqual({ ok: true });
    expect(layoutChange(all(1), { total: 2, shards: [1] }, false)).toEqual({ ok: true });
    expect(layoutChange(all(4), all(8), false)).toEqual({ ok: true });
  });

  it('one that ran some shards may run those again, or fewer of them, with the same total', () => {
    expect(layoutChange({ total: 4, shards: [0, 1] }, { total: 4, shards: [0, 1] }, false)).toEqual({ ok: true });
    expect(layoutChange({ total: 4, shards: [0, 1] }, { total: 4, shards: [1] }, false)).toEqual({ ok: true });
  });

  it('refuses another total, or shards it did not run, naming `minutes shards plan`; --reshard lets it through', () => {
    const other = layoutChange({ total: 2, shards: [0] }, { total: 4, shards: [0, 1] }, false);
    expect(other).toEqual({ ok: false, problem: expect.stringContaining('`minutes shards plan --total 4 --hosts N') });
    expect(!other.ok && other.problem).toMatch(
      /^this data root was last started with shards 0 of 2 .* shards 0-1 of 4 would answer servers without their memory/,
    );
    expect(layoutChange({ total: 4, shards: [0, 1] }, { total: 4, shards: [1, 2] }, false).ok).toBe(false);
    expect(layoutChange({ total: 4, shards: [0, 1] }, all(1), false).ok).toBe(false);
    expect(layoutChange({ total: 2, shards: [0] }, { total: 4, shards: [0, 1] }, true)).toEqual({ ok: true });
  });
});

describe('the recorded layout (.minutes/shards.json)', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let root: string;
  beforeEach(() => {
    tmp = makeTmpDir();
    root = path.join(tmp.dir, 'channels');
  });
  afterEach(() => tmp.cleanup());

  it('is written at the first start, and rewritten only when the layout changes', async () => {
    expect(await claimShardLayout(root, { total: 16, shards: [0, 1, 2, 3, 8] }, { reshard: false })).toEqual({ recorded: null });
    expect(fs.readFileSync(shardLayoutFile(root), 'utf8')).toBe('{"total":16,"shards":[0,1,2,3,8]}\n');
    const before = fs.statSync(shardLayoutFile(root)).ino;
    expect(await claimShardLayout(root, { total: 16, shards: [0, 1, 2, 3, 8] }, { reshard: false })).toEqual({
      recorded: { total: 16, shards: [0, 1, 2, 3, 8] },
    });
    expect(fs.statSync(shardLayoutFile(root)).ino).toBe(before);
    await claimShardLayout(root, { total: 16, shards: [8] }, { reshard: false });
    expect(await readShardLayout(root)).toEqual({ total: 16, shards: [8] });
  });

  it('a refused start leaves the record as it was; --reshard records the new layout', async () => {
    await claimShardLayout(root, { total: 2, shards: [1] }, { reshard: false });
    const refused = await claimShardLayout(root, { total: 4, shards: [2, 3] }, { reshard: false });
    expect(refused).toEqual({ problem: expect.stringContaining(`(recorded in ${shardLayoutFile(root)})`) });
    expect((refused as { problem: string }).problem).not.toMatch(/\n/);
    expect(await readShardLayout(root)).toEqual({ total: 2, shards: [1] });
    expect(await claimShardLayout(root, { total: 4, shards: [2, 3] }, { reshard: true })).toEqual({ recorded: { total: 2, shards: [1] } });
    expect(await readShardLayout(root)).toEqual({ total: 4, shards: [2, 3] });
  });

  it('a record that does not parse or fit stops the start (fix or remove it), and is left untouched', async () => {
    for (const text of ['{"total": 2, "shards": [0]', '{"total": 2, "shards": [2]}', '{"total": 0, "shards": [0]}', '{"shards": [0]}']) {
      fs.mkdirSync(path.dirname(shardLayoutFile(root)), { recursive: true });
      fs.writeFileSync(shardLayoutFile(root), text);
      const r = await claimShardLayout(root, all(2), { reshard: false });
      expect(r).toEqual({
        problem: expect.stringMatching(
          /^in the data root .*: \.minutes\/shards\.json (is not valid JSON|does not have the expected shape).*; fix or remove it$/,
        ),
      });
      expect(fs.readFileSync(shardLayoutFile(root), 'utf8')).toBe(text);
    }
  });

  it('a data root that is a file is one line naming it', async () => {
    fs.writeFileSync(root, 'a file, not a folder');
    const r = await claimShardLayout(root, all(1), { reshard: false });
    expect(r).toEqual({
      problem: expect.stringMatching(/^in the data root .*channels: cannot read \.minutes\/shards\.json: ENOTDIR[^\n]*; check its permissions$/),
    });
  });
});
