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
  'shared', // types and helpers every layer may use: keyed queue, secret redaction, the conversation's shape, JSON Lines, CLI IO
  'log',
  'config',
  'embed', // sentence vectors: the packaged model's worker, the API client, the vector cache
  'memory', // the channel store, memory files
  'recall', // targeted recall and search over memory files: words, meaning, abstention
  'packages', // context packages: gathered from a conversation, activated in others of the server
  'llm', // one model interface over the providers
  'prompt',
  'chat', // the chat engine and the channel commands
  'upkeep', // memory upkeep off the reply path
  'condense', // the Secretary
  'app', // the composition root: wires a runtime from settings
  'bot', // Discord
  'dashboard', // the read-only web page over the data root
  'mcp', // `minutes mcp`: the read-only Model Context Protocol server over the data root (reads it as the dashboard does)
  'cli', // the `minutes` command
];
/**
 * Folders split into subfolders, each listed bottom first: a file imports from its own subfolder and
 * the ones listed before it (as LAYERS does for folders), so the split by job cannot rot back into a
 * grab-bag. Every file of such a folder lives in one of its subfolders.
 */
const SUBLAYERS: Record<string, string[]> = {
  condense: [
    'condensation', // what a condensation is: the discussion's transcript, the draft's shape, its post and file
    'knowledge', // the channel's knowledge: decisions, action items, open questions, playbooks (and /actions, /questions, /playbooks), CONTEXT.md, their MEMORY.md lines
    'saga', // the Secretary's saga: the ledger and its leases, the trigger gate, the draft, the steps, filing
    'observers', // noticing decisions nobody condensed, drift from a decision in force
    'titles', // thread titles
    'audit', // the audit of a channel folder
  ],
  bot: [
    'shards', // which servers a shard owns, running shards, identify turns across hosts, planning shards over hosts
    'discord', // the discord.js client, the permissions the bot needs, reply splitting, doctor's Discord check
    'commands', // the command registry on Discord: slash definitions built from it, routing through it, /pack's refusals
    'intake', // messages in and replies out: events, the gate, the log, the inbox, catch-up, sending, names
    'secretary', // the Secretary on Discord: triggers, slash commands, jobs, gathering, threads it opens, decision offers, drift notes
    'start', // the composition root: builds the runtime and wires the parts above into a running bot
  ],
};
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
const NO_FS = ['packages', 'bot', 'chat', 'condense', 'dashboard', 'mcp'];
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
 * The computed import()s and require()s allowed in src/, each with its reason: a specifier that is
 * not a string literal is invisible to the layer rule, so every one must be named here.
 */
const COMPUTED_IMPORTS: Record<string, string> = {
  'embed/worker.ts require(modelModule)':
    'a worker thread cannot be handed a module, only its name: the sentence model named by workerData (the packaged one unless a caller names another)',
};

/** import()/require() calls whose specifier is not a plain string literal, as `require(expr)`. */
export function computedImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?<![\w$.])(require|import)\s*\(\s*([^)]*?)\s*\)/g)) {
    if (!/^(['"`])[^'"`$]*\1$/.test(m[2])) out.push(`${m[1]}(${m[2]})`);
  }
  return out;
}

/**
 * What is wrong with one file's imports (its path relative to src/): a specifier outside src/, one
 * into a higher layer, one into a file at the top of src/ (which belongs to no layer, so the layer
 * rule could not see past it), and a computed import()/require() not on COMPUTED_IMPORTS.
 */
export function importProblems(rel: string, text: string, allowed: Record<string, string> = COMPUTED_IMPORTS): string[] {
  const wrong: string[] = [];
  const from = rel.split('/')[0];
  for (const spec of relativeImports(text)) {
    const to = path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec));
    if (to.startsWith('..')) wrong.push(`${rel} imports ${spec}, outside src/`);
    else if (!to.includes('/')) wrong.push(`${rel} imports ${spec}, a file at the top of src/ that belongs to no layer (move it into a folder)`);
    else {
      const layer = to.split('/')[0];
      if (layer !== from && !(LAYERS.indexOf(layer) >= 0 && LAYERS.indexOf(layer) < LAYERS.indexOf(from)))
        wrong.push(`${rel} (${from}) imports ${spec} (${layer}, a higher layer or none)`);
    }
  }
  for (const call of computedImports(text)) {
    if (!allowed[`${rel} ${call}`]) wrong.push(`${rel} has a computed ${call}: use a string literal, or name it in COMPUTED_IMPORTS with the reason`);
  }
  return wrong;
}

/**
 * What is wrong with one file's place and imports inside a folder listed in SUBLAYERS (its path
 * relative to src/): a file at the folder's top or in an unlisted subfolder, and an import into a
 * higher subfolder of the same folder (or into the folder's top).
 */
export function sublayerProblems(rel: string, text: string, sublayers: Record<string, string[]> = SUBLAYERS): string[] {
  const [folder, sub] = rel.split('/');
  const subs = sublayers[folder];
  if (!subs) return [];
  if (rel.split('/').length < 3) return [`${rel} is at the top of ${folder}/: move it into one of its subfolders (${subs.join(', ')})`];
  if (!subs.includes(sub)) return [`${rel} is in ${folder}/${sub}/, which SUBLAYERS does not list for ${folder}/`];
  const wrong: string[] = [];
  for (const spec of relativeImports(text)) {
    const to = path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec)).split('/');
    if (to[0] !== folder) continue;
    const toSub = to.length >= 3 ? to[1] : '(top)';
    if (toSub !== sub && !(subs.indexOf(toSub) >= 0 && subs.indexOf(toSub) < subs.indexOf(sub)))
      wrong.push(`${rel} (${folder}/${sub}) imports ${spec} (${folder}/${toSub}, a higher subfolder or none)`);
  }
  return wrong;
}

/** Where a relative specifier of a file (its path relative to src/) leads, relative to src/. */
export function importTarget(rel: string, spec: string): string {
  return path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec));
}

/** The relative specifiers of a file (its path relative to src/) that lead into `folder` of src/. */
export function importsInto(rel: string, text: string, folder: string): string[] {
  return relativeImports(text).filter((spec) => importTarget(rel, spec).split('/')[0] === folder);
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

  it('imports point one way: from a folder to itself or to a folder below it, by literal specifiers', () => {
    const wrong = files.flatMap((file) => importProblems(path.relative(SRC, file).split(path.sep).join('/'), fs.readFileSync(file, 'utf8')));
    expect(wrong).toEqual([]);
  });

  it('the import rule fails a higher layer, a top-level src/*.ts file, and a computed import or require', () => {
    expect(importProblems('chat/x.ts', "import { a } from '../upkeep/upkeep';")).toEqual([
      'chat/x.ts (chat) imports ../upkeep/upkeep (upkeep, a higher layer or none)',
    ]);
    expect(importProblems('chat/x.ts', "import { a } from '../helpers';\nconst b = require('../../src/wiring');")).toEqual([
      'chat/x.ts imports ../helpers, a file at the top of src/ that belongs to no layer (move it into a folder)',
      'chat/x.ts imports ../../src/wiring, outside src/',
    ]);
    expect(importProblems('memory/x.ts', "import { a } from '../shared/queue';\nimport { b } from './y';")).toEqual([]);
    const computed = ['const m = require(name);', 'const n = await import(`./commands/${cmd}`);', "const o = require('../chat/' + f);"].join('\n');
    expect(importProblems('cli/x.ts', computed)).toEqual([
      'cli/x.ts has a computed require(name): use a string literal, or name it in COMPUTED_IMPORTS with the reason',
      'cli/x.ts has a computed import(`./commands/${cmd}`): use a string literal, or name it in COMPUTED_IMPORTS with the reason',
      "cli/x.ts has a computed require('../chat/' + f): use a string literal, or name it in COMPUTED_IMPORTS with the reason",
    ]);
    expect(importProblems('cli/x.ts', 'const m = require(name);', { 'cli/x.ts require(name)': 'a reason' })).toEqual([]);
    // Literal ones, and types, are plain imports the layer rule sees.
    expect(computedImports("require('pino-pretty') as typeof import('pino-pretty'); await import(\"./a\"); import(`./b`)")).toEqual([]);
  });

  it('subfolders point one way too: a file of a folder in SUBLAYERS imports only from its subfolder or one listed before it', () => {
    const wrong = files.flatMap((file) => sublayerProblems(path.relative(SRC, file).split(path.sep).join('/'), fs.readFileSync(file, 'utf8')));
    expect(wrong).toEqual([]);
  });

  it('the subfolder rule fails a higher subfolder, the top of the folder, and an unlisted subfolder', () => {
    const subs = { condense: ['condensation', 'knowledge', 'saga'] };
    expect(sublayerProblems('condense/knowledge/x.ts', "import { a } from '../saga/steps';", subs)).toEqual([
      'condense/knowledge/x.ts (condense/knowledge) imports ../saga/steps (condense/saga, a higher subfolder or none)',
    ]);
    expect(sublayerProblems('condense/saga/x.ts', "import { a } from '../render';", subs)).toEqual([
      'condense/saga/x.ts (condense/saga) imports ../render (condense/(top), a higher subfolder or none)',
    ]);
    expect(sublayerProblems('condense/x.ts', '', subs)).toEqual([
      'condense/x.ts is at the top of condense/: move it into one of its subfolders (condensation, knowledge, saga)',
    ]);
    expect(sublayerProblems('condense/misc/x.ts', '', subs)).toEqual(['condense/misc/x.ts is in condense/misc/, which SUBLAYERS does not list for condense/']);
    // Its own subfolder, a lower one, and other folders are the layer rule's business, not this one's.
    const fine = ["import { a } from './y';", "import { b } from '../condensation/types';", "import { c } from '../../memory/store';"].join('\n');
    expect(sublayerProblems('condense/saga/x.ts', fine, subs)).toEqual([]);
    expect(sublayerProblems('chat/x.ts', "import { a } from './y';", subs)).toEqual([]);
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

  it('the chat engine and upkeep meet only at the conversation store (no hooks either way, no AsyncLocalStorage guard)', () => {
    const wrong: string[] = [];
    for (const file of files.filter((f) => folderOf(f) === 'upkeep')) {
      for (const spec of relativeImports(fs.readFileSync(file, 'utf8'))) {
        if (path.resolve(path.dirname(file), spec) === path.join(SRC, 'chat', 'engine')) wrong.push(`${path.relative(SRC, file)} imports the chat engine`);
      }
    }
    for (const file of files) if (/AsyncLocalStorage/.test(fs.readFileSync(file, 'utf8'))) wrong.push(`${path.relative(SRC, file)} uses AsyncLocalStorage`);
    expect(wrong).toEqual([]);
  });

  it('the Secretary does not reach into upkeep: side tasks live with the model interface (src/llm)', () => {
    const wrong = files
      .filter((f) => folderOf(f) === 'condense')
      .flatMap((f) => {
        const rel = path.relative(SRC, f).split(path.sep).join('/');
        return importsInto(rel, fs.readFileSync(f, 'utf8'), 'upkeep').map((spec) => `${rel} imports ${spec}`);
      });
    expect(wrong).toEqual([]);
    // Found from any depth of condense/ (a prefix test for '../upkeep/' missed its subfolders).
    expect(importsInto('condense/saga/x.ts', "import { a } from '../../upkeep/session';\nimport { b } from '../knowledge/fold';", 'upkeep')).toEqual([
      '../../upkeep/session',
    ]);
  });

  it('bot classes take the dependencies they use, not the whole Runtime (only the composition root does)', () => {
    // The bot's composition root builds the runtime and hands each class the parts it uses.
    const takesRuntime = new Set(['bot/start/start.ts']);
    const intoRuntime = (rel: string, text: string) => importsInto(rel, text, 'app').some((spec) => importTarget(rel, spec) === 'app/runtime');
    const wrong = files
      .filter((f) => folderOf(f) === 'bot')
      .map((f) => path.relative(SRC, f).split(path.sep).join('/'))
      .filter((rel) => !takesRuntime.has(rel) && intoRuntime(rel, fs.readFileSync(path.join(SRC, rel), 'utf8')));
    expect(wrong).toEqual([]);
    // Resolved from any depth of bot/ (a literal '../app/runtime' matched no file in a subfolder).
    expect(intoRuntime('bot/intake/x.ts', "import type { Runtime } from '../../app/runtime';")).toBe(true);
    expect(intoRuntime('bot/intake/x.ts', "import { y } from '../app/runtime';\nimport { z } from '../../app/turnHost';")).toBe(false);
    expect(takesRuntime.has('bot/start/start.ts') && files.some((f) => path.relative(SRC, f).split(path.sep).join('/') === 'bot/start/start.ts')).toBe(true);
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
