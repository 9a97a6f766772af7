import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli';
import { generateDataRoot } from '../helpers/dashboardData';
import { makeTmpDir } from '../helpers/tmp';

/** `minutes mcp`'s arguments: each mistake is one line on stderr and exit code 2, before any protocol starts. */
describe('minutes mcp (arguments)', () => {
  const tmp = makeTmpDir('minutes-mcp-cli-');
  const root = path.join(tmp.dir, 'root');
  generateDataRoot(root);
  afterAll(() => tmp.cleanup());

  const cases: Array<[string, string[], RegExp]> = [
    [
      'a --channels entry that is not a key',
      ['--channels', '100000000000000001/200000000000000002,../etc'],
      /--channels: "\.\.\/etc" is not a channel key: use <guild id>\/<channel id>/,
    ],
    ['an empty --channels', ['--channels', ' , '], /--channels is empty/],
    ['a --data-dir that does not exist', ['--data-dir', 'nowhere'], /the data root .*nowhere does not exist: give --data-dir the folder the bot writes/],
    [
      "one channel's folder as --data-dir",
      ['--data-dir', path.join('root', '100000000000000001', '200000000000000002')],
      /.*200000000000000002 is one channel's folder, not a data root: give --data-dir/,
    ],
    ['an unknown --semantic', ['--data-dir', 'root', '--semantic', 'fast'], /--semantic must be off, local or api, not "fast"/],
  ];
  it.each(cases)('refuses %s in one line', async (_what, args, want) => {
    const r = await runCli(['mcp', ...args], { env: {}, cwd: tmp.dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^minutes mcp: ${want.source}[^\\n]*\\n$`));
  });

  it('takes the data root from MINUTES_DATA_DIR without --data-dir, and says which --channels keys name nothing', async () => {
    // An ended stdin is a client that has gone: the server stops at once, after its start line.
    const r = await runCli(['mcp', '--semantic', 'off', '--channels', 'local/sandbox,local/nothing'], { env: { MINUTES_DATA_DIR: root }, cwd: tmp.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`minutes mcp: --channels names no channel of ${root} (yet): local/nothing\n`);
    expect(r.stderr).toContain(`minutes mcp: serving 1 channel(s) of ${root} over stdio, read-only (recall meaning: off)\n`);
    expect(fs.readdirSync(root).sort()).toEqual(['100000000000000001', 'local']);
  });
});
