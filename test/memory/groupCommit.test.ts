import fs from 'node:fs';
import path from 'node:path';
import { GroupCommit } from '../../src/memory/groupCommit';
import { makeTmpDir } from '../helpers/tmp';

describe('the journal group commit', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  const errors: unknown[] = [];
  const commit = () => new GroupCommit({ everyMs: 5, onError: (err) => errors.push(err) });
  beforeEach(() => {
    tmp = makeTmpDir();
    errors.length = 0;
  });
  afterEach(() => {
    jest.restoreAllMocks();
    tmp.cleanup();
  });

  it("prepares a new file's folder and file off the caller's thread, so its first append only writes", async () => {
    const gc = commit();
    const file = path.join(tmp.dir, 'g', 'c', '.minutes', 'conversation.journal.jsonl');
    await gc.prepare(file);
    expect(fs.readFileSync(file, 'utf8')).toBe('');
    const mkdirSync = jest.spyOn(fs, 'mkdirSync');
    gc.appendSync(file, '{"seq":1}\n', true);
    gc.appendSync(file, '{"seq":2}\n', false);
    expect(mkdirSync).not.toHaveBeenCalled();
    await gc.flush();
    expect(fs.readFileSync(file, 'utf8')).toBe('{"seq":1}\n{"seq":2}\n');
    expect(errors).toEqual([]);
  });

  it('an append that comes before the preparation has finished lands, and the late preparation does not cut it', async () => {
    const gc = commit();
    const file = path.join(tmp.dir, 'g', 'c', '.minutes', 'conversation.journal.jsonl');
    const prepared = gc.prepare(file);
    gc.appendSync(file, '{"seq":1}\n', true);
    await prepared;
    gc.appendSync(file, '{"seq":2}\n', false);
    await gc.flush();
    expect(fs.readFileSync(file, 'utf8')).toBe('{"seq":1}\n{"seq":2}\n');
    // A folder it cannot make is left to the append to report; the preparation itself never fails.
    const blocked = path.join(tmp.dir, 'a-file');
    fs.writeFileSync(blocked, 'x');
    await expect(gc.prepare(path.join(blocked, 'journal.jsonl'))).resolves.toBeUndefined();
    expect(() => gc.appendSync(path.join(blocked, 'journal.jsonl'), 'y\n', true)).toThrow(/ENOTDIR|EEXIST/);
  });
});
