import fs from 'node:fs';
import path from 'node:path';
import { botVectorCacheDir } from '../../src/config/semantic';
import {
  channelPaths,
  DATA_ROOT_TREE,
  firstSeenFile,
  layoutPaths,
  lockFile,
  namesFile,
  NAMES,
  packageFile,
  shardLayoutFile,
  vectorCacheDir,
  workspaceFiles,
} from '../../src/memory/layout';
import { assertValidRef, isLocalName } from '../../src/memory/paths';
import type { ChannelRef } from '../../src/memory/paths';

const README = path.join(__dirname, '..', '..', 'docs', 'memory.md'); // the data root's page of the manual, linked from README.md
const EXAMPLES = path.join(__dirname, '..', '..', 'examples');
const ROOT = '/data-root';
const G = '111111111111111111';
const C = '222222222222222222';
const T = '333333333333333333';

/** The paths docs/memory.md's "Where memory lives" block lists: one name a line, two spaces of indent a level. */
export function readmeLayoutPaths(readme: string): string[] {
  const section = readme.slice(readme.indexOf('## Where memory lives'));
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of block.split('\n').filter((l) => l.trim())) {
    const depth = (line.length - line.trimStart().length) / 2;
    const name = line.trim().split(/\s+/)[0];
    stack.length = depth;
    stack.push(name);
    out.push(stack.join(''));
  }
  return out;
}

/** A real path under ROOT (or under a data root `root`) as the tree writes it: ids become their placeholders. */
function asTreePath(file: string, root = ROOT): string {
  const rel = path.relative(root, file).split(path.sep);
  const packages = rel[rel.length - 2] === NAMES.packages && rel[rel.length - 1].endsWith('.md');
  if (packages) rel[rel.length - 1] = '<name>.md';
  if (rel[0] === NAMES.local && rel.length > 2 && !packages) rel.splice(0, 2, '<guildId>', '<channelId>'); // laid out like a channel folder
  if (rel[0] === NAMES.local && rel.length === 2) rel[1] = '<name>';
  const named = rel.map((s, i) => (s === G ? '<guildId>' : s === C ? '<channelId>' : s === T && rel[i - 1] === NAMES.threads ? '<threadId>' : s));
  return ['channels', ...named]
    .join('/')
    .replace(/(^|\/)\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.md$/, '$1YYYY-MM-DD-<slug>.md')
    .replace(/(^|\/)playbooks\/[a-z0-9-]+\.md$/, '$1playbooks/<slug>.md');
}

function inTree(treePath: string, tree: Set<string>): boolean {
  return tree.has(treePath) || tree.has(`${treePath}/`);
}

describe('the data root has one layout (src/memory/layout.ts)', () => {
  const tree = new Set(layoutPaths());

  it('docs/memory.md\'s "Where memory lives" lists every path the layout names, and nothing else', () => {
    const listed = readmeLayoutPaths(fs.readFileSync(README, 'utf8'));
    expect([...listed].sort()).toEqual([...tree].sort());
  });

  it('the docs/memory.md check sees a missing line and an extra one (so it cannot pass by reading nothing)', () => {
    const readme = fs.readFileSync(README, 'utf8');
    const missing = readme.replace(/\n\s+noticed\.json[^\n]*/, '');
    expect(readmeLayoutPaths(missing)).not.toContain('channels/<guildId>/<channelId>/.minutes/noticed.json');
    expect(readmeLayoutPaths(missing).length).toBe(tree.size - 1);
    const extra = readme.replace(/(\n(\s+)noticed\.json[^\n]*)/, '$1\n$2stray.json   not a file of the layout');
    expect(readmeLayoutPaths(extra).filter((p) => !tree.has(p))).toEqual(['channels/<guildId>/<channelId>/.minutes/stray.json']);
  });

  it('every name in NAMES is a file or folder of the tree', () => {
    const names = new Set(layoutPaths().map((p) => p.replace(/\/$/, '').split('/').pop()));
    expect(Object.values(NAMES).filter((n) => !names.has(n))).toEqual([]);
  });

  it('every path the builders return is in the tree (a channel, a thread, a private thread, a console channel)', () => {
    const refs: ChannelRef[] = [
      { kind: 'discord', guildId: G, channelId: C },
      { kind: 'discord', guildId: G, channelId: C, threadId: T },
      { kind: 'discord', guildId: G, channelId: C, threadId: T, privateThread: true },
      { kind: 'local', name: 'orders-team' },
    ];
    const built = [
      ...refs.flatMap((r) => Object.values(channelPaths(ROOT, r))),
      firstSeenFile(ROOT, G),
      namesFile(ROOT, G),
      lockFile(channelPaths(ROOT, refs[0]).channelStateDir),
      ...Object.values(workspaceFiles(ROOT)),
      vectorCacheDir(ROOT),
      shardLayoutFile(ROOT),
      packageFile(ROOT, { kind: 'discord', guildId: G }, 'orders-db'),
      packageFile(ROOT, { kind: 'local' }, 'orders-db'),
    ];
    expect(built.map((f) => asTreePath(f)).filter((p) => !inTree(p, tree))).toEqual([]);
    // The check above maps real paths onto the tree: a path the tree lacks is reported.
    expect(inTree(asTreePath(path.join(ROOT, G, C, '.minutes', 'stray.json')), tree)).toBe(false);
  });

  it("the config layer's default vector cache (it sits below memory/ and cannot import the layout) is the layout's", () => {
    expect(botVectorCacheDir(ROOT)).toBe(vectorCacheDir(ROOT));
  });

  it('every file of the example data root (written by the real Secretary and store) is in the tree', () => {
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        files.push(p);
        if (e.isDirectory()) walk(p);
      }
    };
    walk(EXAMPLES);
    expect(files.length).toBeGreaterThan(5);
    expect(files.map((f) => asTreePath(f, EXAMPLES)).filter((p) => !inTree(p, tree))).toEqual([]);
  });

  it("no console channel may be called packages: local/packages/ holds the console channels' packages", () => {
    expect(isLocalName('packages')).toBe(false);
    expect(() => assertValidRef({ kind: 'local', name: 'packages' })).toThrow(/reserved/);
    expect(() => packageFile(ROOT, { kind: 'local' }, '../x')).toThrow(/invalid package name/);
  });

  it('the tree starts at the data root', () => {
    expect(DATA_ROOT_TREE.name).toBe('channels/');
  });
});
