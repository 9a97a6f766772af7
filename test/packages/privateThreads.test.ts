import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';

/**
 * A private thread's memory reaches a package made outside the bot only when the operator opts in
 * (`minutes pack create --include-private`), and a private thread's package is listed and shown by
 * `minutes pack` only with the flag. Which folder is a private thread's is one rule for every
 * surface: test/memory/privateThreads.test.ts.
 */
const G = '111111111111111111';
const C = '222222222222222222';
const T = '333333333333333333';

let tmp: ReturnType<typeof makeTmpDir>;
let root: string;
let threadDir: string;
const pack = (args: string[]) => runCli(['pack', ...args, '--data-dir', root], { env: { MINUTES_DATA_DIR: path.join(tmp.dir, 'unused') }, cwd: tmp.dir });
const create = (extra: string[] = []) =>
  pack(['create', 'zanzibar', '--channel-dir', threadDir, '--query', 'Zanzibar acquisition', '--semantic', 'off', ...extra]);
const packagesDir = () => path.join(root, G, 'packages');

beforeEach(() => {
  tmp = makeTmpDir();
  root = path.join(tmp.dir, 'data');
  const ch = path.join(root, G, C);
  fs.mkdirSync(ch, { recursive: true });
  fs.writeFileSync(path.join(ch, 'MEMORY.md'), '# Channel Memory\n\n- [m-aaaa01] the orders service uses Postgres [from: ana, 2025-03-05]\n');
  threadDir = path.join(ch, 'threads', T);
  fs.mkdirSync(path.join(threadDir, '.minutes'), { recursive: true });
  fs.writeFileSync(path.join(threadDir, 'MEMORY.md'), '# Channel Memory\n\n- [m-priv01] we acquire Zanzibar Widgets quietly [from: ana, 2025-03-07]\n');
});
afterEach(() => tmp.cleanup());

describe("minutes pack and a private thread's folder", () => {
  it('create is refused without --include-private, writing nothing; with it the package is bound to the thread', async () => {
    const refused = await create();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `minutes pack: ${threadDir} is a private thread's folder: its memory leaves it only with --include-private (the package is then usable only in that thread)\n`,
    );
    expect(fs.existsSync(packagesDir())).toBe(false);

    const made = await create(['--include-private']);
    expect(made.code).toBe(0);
    expect(made.stdout).toContain('Zanzibar');
    const file = fs.readFileSync(path.join(packagesDir(), 'zanzibar.md'), 'utf8');
    expect(file).toContain('private_thread: true');
  });

  it('list leaves its package out and explain refuses it without --include-private', async () => {
    expect((await create(['--include-private'])).code).toBe(0);
    const list = await pack(['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toContain('zanzibar');
    expect(list.stderr).toBe('minutes pack: 1 private thread package(s) left out: add --include-private to list them\n');
    expect((await pack(['list', '--include-private'])).stdout).toContain('zanzibar');

    const explain = await pack(['explain', 'zanzibar']);
    expect(explain.code).toBe(2);
    expect(explain.stdout).toBe('');
    expect(explain.stderr).toBe("minutes pack: package zanzibar holds a private thread's items: add --include-private to show them\n");
    expect((await pack(['explain', 'zanzibar', '--include-private'])).stdout).toContain('Zanzibar');
  });
});
