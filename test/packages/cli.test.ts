import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';
import { fileTree } from './helpers';

const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'local', 'orders-team');
const G = '111111111111111111';
const C = '222222222222222222';

let tmp: ReturnType<typeof makeTmpDir>;
let root: string;
const env = (): NodeJS.ProcessEnv => ({ MINUTES_DATA_DIR: path.join(tmp.dir, 'unused') });
const pack = (args: string[]) => runCli(['pack', ...args], { env: env(), cwd: tmp.dir });

beforeEach(() => {
  tmp = makeTmpDir();
  root = path.join(tmp.dir, 'data');
  fs.cpSync(EXAMPLE, path.join(root, G, C), { recursive: true });
});
afterEach(() => tmp.cleanup());

describe('minutes pack', () => {
  it('create, list, explain --json, export, import elsewhere (on --trust), export again', async () => {
    const created = await pack([
      'create',
      'orders-db',
      '--channel-dir',
      path.join(root, G, C),
      '--query',
      'orders database',
      '--item',
      'm-e0a005',
      '--max-items',
      '3',
      '--data-dir',
      root,
      '--semantic',
      'off',
    ]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(new RegExp(`^Created package orders-db from ${G}/${C}: 3 items`));
    expect(created.stdout).toContain('[MEMORY.md · m-e0a005] the nightly backup job runs at 02:00 UTC');

    const list = await pack(['list', '--data-dir', root]);
    expect(list.stdout).toMatch(new RegExp(`^server ${G}:\\n  orders-db: orders-db \\(from ${G}/${C}; 3 items, ~\\d+ tokens\\)\\n$`));

    const explained = await pack(['explain', 'orders-db', '--json', '--data-dir', root]);
    expect(explained.code).toBe(0);
    const json = JSON.parse(explained.stdout);
    expect(json).toMatchObject({ name: 'orders-db', server: G, hashOk: true, size: { items: 3 }, budget: { maxItems: 3, maxTokens: 1200 }, activeIn: [] });
    expect(json.recipes).toEqual([
      { recipe: 1, items: ['m-e0a005'] },
      { recipe: 2, query: 'orders database' },
    ]);
    expect(json.items[0]).toMatchObject({ channel: `${G}/${C}`, file: 'MEMORY.md', entry: 'm-e0a005', date: '2026-11-16', recipe: 1 });

    const out = path.join(tmp.dir, 'orders-db.md');
    expect((await pack(['export', 'orders-db', '--out', out, '--data-dir', root])).code).toBe(0);
    const stdoutExport = await pack(['export', 'orders-db', '--data-dir', root]);
    expect(stdoutExport.stdout).toBe(fs.readFileSync(out, 'utf8'));

    const other = path.join(tmp.dir, 'other');
    const imported = await pack(['import', out, '--data-dir', other, '--trust']);
    expect(imported.stdout).toBe(
      `Imported package orders-db (3 items) into server ${G}, on --trust: it was not signed by this data root, and is shown as imported.\n`,
    );
    const again = await pack(['export', 'orders-db', '--data-dir', other, '--server', G]);
    expect(again.stdout).toBe(fs.readFileSync(path.join(other, G, 'packages', 'orders-db.md'), 'utf8'));
    expect(again.stdout).toContain('unverified: true');
    // Back into the data root it came from: another one's signature, so on --trust again.
    const back = path.join(tmp.dir, 'back.md');
    fs.writeFileSync(back, again.stdout);
    expect((await pack(['import', back, '--data-dir', root, '--server', '444444444444444444'])).stderr).toMatch(/is not signed by this data root/);
  });

  it('refuses a bad import file with one line on stderr, exit code 2, and the data root unchanged', async () => {
    await pack(['create', 'orders-db', '--channel-dir', path.join(root, G, C), '--query', 'orders database', '--data-dir', root, '--semantic', 'off']);
    const good = (await pack(['export', 'orders-db', '--data-dir', root])).stdout;
    const other = path.join(tmp.dir, 'other');
    fs.mkdirSync(other);
    const cases: [string, string | Buffer, RegExp][] = [
      ['edited.md', good.replace('moves to Postgres 16', 'moves to Oracle'), /edited\.md is not signed by this data root \(.*\): .*--trust/],
      ['notes.md', '# some notes\n\n- a line\n', /notes\.md is not a context package Minutes wrote \(no frontmatter manifest at the top\)/],
      ['big.md', good + 'x'.repeat(300_000), /big\.md has \d+ bytes, more than a package may \(262144\)/],
    ];
    for (const [name, text, why] of cases) {
      fs.writeFileSync(path.join(tmp.dir, name), text);
      const r = await pack(['import', path.join(tmp.dir, name), '--data-dir', other]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(why);
    }
    expect(fileTree(other)).toEqual({});
  });

  it('wrong arguments are one line each: a folder outside the data root, no recipe, an unknown package, a bad server', async () => {
    const outside = await pack(['create', 'x', '--channel-dir', tmp.dir, '--query', 'orders', '--data-dir', root]);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/^minutes pack: .* is not a channel folder of the data root .*: pass --data-dir, or the channel's folder inside it\n$/);
    const none = await pack(['create', 'x', '--channel-dir', path.join(root, G, C), '--data-dir', root]);
    expect(none.stderr).toBe('minutes pack: give --query TEXT, or --item ID (repeatable), or both\n');
    const missing = await pack(['explain', 'nope', '--data-dir', root]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^minutes pack: no package "nope" in .*: minutes pack list shows them\n$/);
    const server = await pack(['list', '--server', 'guild-one', '--data-dir', root]);
    expect(server.stderr).toBe('minutes pack: --server must be "local" or a Discord server id, not "guild-one"\n');
    expect(Object.keys(fileTree(root)).filter((f) => f.includes('packages'))).toEqual([]);
  });
});
