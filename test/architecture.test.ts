import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The shape of the code, checked on every run: folders under src/ form layers that point one way
 * (a folder imports only from itself and the folders listed before it), so no import cycle between
 * folders can come back, and no source file grows past MAX_LINES. A new folder fails this test
 * until it is given its place in LAYERS (and in README's tour of the code).
 */
const LAYERS = [
  'shared', // types and helpers every layer may use: keyed queue, secret redaction, the conversation's and upkeep state's shapes, JSON Lines, CLI IO
  'log',
  'config',
  'embed', // sentence vectors: the packaged model's worker, the API client, the vector cache
  'memory', // the channel store, memory files
  'recall', // targeted recall and search over memory files: words, meaning, abstention
  'llm', // one model interface over the providers
  'prompt',
  'chat', // the chat engine and the channel commands
  'upkeep', // memory upkeep off the reply path
  'condense', // the Secretary
  'app', // the composition root: wires a runtime from settings
  'bot', // Discord
  'dashboard', // the read-only web page over the data root
  'cli', // the `minutes` command
];
/** Files small enough to read in one sitting. */
const MAX_LINES = 400;

const SRC = path.join(__dirname, '..', 'src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Relative specifiers of import/export-from, require() and import() in a source text. */
function relativeImports(text: string): string[] {
  const out: string[] = [];
  const re =
    /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|require\(\s*['"](\.[^'"]+)['"]\s*\)|import\(\s*['"](\.[^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"](\.[^'"]+)['"]/g;
  for (const m of text.matchAll(re)) out.push((m[1] ?? m[2] ?? m[3] ?? m[4]) as string);
  return out;
}

const folderOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0];

/** Folders that reach the data root only through the store (src/memory/): no file I/O of their own. */
const NO_FS = ['bot', 'chat', 'condense', 'dashboard'];
const FS_MODULE = /^(?:node:)?fs(?:\/promises)?$/;

/** Every module a source text imports, requires or import()s, relative or not. */
function importedModules(text: string): string[] {
  const re =
    /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;
  return [...text.matchAll(re)].map((m) => (m[1] ?? m[2] ?? m[3] ?? m[4]) as string);
}

/** Files under `src` in a NO_FS folder that import fs in any form, as `folder/file: module`. */
export function fsImportsIn(src: string): string[] {
  return NO_FS.flatMap((folder) => {
    const dir = path.join(src, folder);
    if (!fs.existsSync(dir)) return [];
    return sourceFiles(dir).flatMap((file) =>
      importedModules(fs.readFileSync(file, 'utf8'))
        .filter((m) => FS_MODULE.test(m))
        .map((m) => `${path.relative(src, file).split(path.sep).join('/')}: ${m}`),
    );
  });
}

/**
 * Import cycles between files of one folder (a folder's files point one way too, so each can be
 * read without the ones that import it). `imports` maps a file to the files it imports; each cycle
 * is reported once, as the path that closes it.
 */
export function fileCycles(imports: Map<string, string[]>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const out: string[] = [];
  const visit = (n: string, stack: string[]): void => {
    state.set(n, 'open');
    stack.push(n);
    for (const m of imports.get(n) ?? []) {
      if (state.get(m) === 'open') out.push([...stack.slice(stack.indexOf(m)), m].join(' -> '));
      else if (!state.has(m)) visit(m, stack);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const n of imports.keys()) if (!state.has(n)) visit(n, []);
  return out;
}

describe('the shape of src/', () => {
  const files = sourceFiles(SRC);

  it('knows every folder (a new one needs its place in LAYERS)', () => {
    const folders = new Set(files.map(folderOf).filter((f) => !f.endsWith('.ts')));
    expect([...folders].filter((f) => !LAYERS.includes(f))).toEqual([]);
  });

  it('imports point one way: from a folder to itself or to a folder below it', () => {
    const wrong: string[] = [];
    for (const file of files) {
      const from = folderOf(file);
      for (const spec of relativeImports(fs.readFileSync(file, 'utf8'))) {
        const target = path.resolve(path.dirname(file), spec);
        const rel = path.relative(SRC, target);
        if (rel.startsWith('..')) {
          wrong.push(`${path.relative(SRC, file)} imports ${spec}, outside src/`);
          continue;
        }
        const to = rel.split(path.sep)[0];
        if (to !== from && LAYERS.indexOf(to) > LAYERS.indexOf(from))
          wrong.push(`${path.relative(SRC, file)} (${from}) imports ${spec} (${to}, a higher layer)`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('no import cycle between the files of one folder (src/recall/ had six files importing each other)', () => {
    const imports = new Map<string, string[]>();
    for (const file of files) {
      const same = relativeImports(fs.readFileSync(file, 'utf8'))
        .map((spec) => path.resolve(path.dirname(file), spec))
        .map((t) => (fs.existsSync(`${t}.ts`) ? `${t}.ts` : t))
        .filter((t) => path.dirname(t) === path.dirname(file));
      imports.set(file, same);
    }
    expect(fileCycles(imports).map((c) => c.split(`${SRC}${path.sep}`).join(''))).toEqual([]);
  });

  it('the cycle finder finds a cycle, and only one', () => {
    const g = new Map([
      ['lexical', ['fusion', 'pack']],
      ['fusion', ['vectors']],
      ['vectors', ['lexical']],
      ['pack', ['types']],
      ['types', []],
    ]);
    expect(fileCycles(g)).toEqual(['lexical -> fusion -> vectors -> lexical']);
    g.set('vectors', ['types']);
    expect(fileCycles(g)).toEqual([]);
  });

  it(`${NO_FS.join(', ')} do no file I/O of their own: every read and write goes through the store`, () => {
    expect(fsImportsIn(SRC)).toEqual([]);
  });

  it('the fs rule fails on a synthetic file that imports fs (in each form)', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-arch-'));
    try {
      fs.mkdirSync(path.join(tmp, 'bot'), { recursive: true });
      fs.mkdirSync(path.join(tmp, 'memory'), { recursive: true });
      fs.writeFileSync(path.join(tmp, 'bot', 'ok.ts'), "import path from 'node:path';\nimport { x } from '../memory/fsLike';\n");
      expect(fsImportsIn(tmp)).toEqual([]);
      fs.writeFileSync(
        path.join(tmp, 'bot', 'sneaky.ts'),
        [
          "import fs from 'node:fs';",
          "import * as f2 from 'fs';",
          "import { readFile } from 'fs/promises';",
          "const f4 = require('node:fs/promises');",
          "void import('fs');",
        ].join('\n'),
      );
      // The store's own folder may: only the listed layers are held to it.
      fs.writeFileSync(path.join(tmp, 'memory', 'store.ts'), "import fs from 'node:fs';\n");
      expect(fsImportsIn(tmp)).toEqual([
        'bot/sneaky.ts: node:fs',
        'bot/sneaky.ts: fs',
        'bot/sneaky.ts: fs/promises',
        'bot/sneaky.ts: node:fs/promises',
        'bot/sneaky.ts: fs',
      ]);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it(`no source file is over ${MAX_LINES} lines`, () => {
    const long = files
      .map((f) => ({ f: path.relative(SRC, f), n: fs.readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((x) => x.n > MAX_LINES)
      .map((x) => `${x.f}: ${x.n}`);
    expect(long).toEqual([]);
  });

  it('the import scanner sees every form (so the rule cannot pass by missing imports)', () => {
    expect(
      relativeImports(
        [
          "import a from './a';",
          "import { b } from '../b';",
          "import type { C } from '../c/c';",
          "export { d } from './d';",
          "const e = require('../e');",
          "await import('./f');",
          "import './g';",
          "const s = 'not an import ./h';",
        ].join('\n'),
      ),
    ).toEqual(['./a', '../b', '../c/c', './d', '../e', './f', './g']);
  });
});
