import fs from 'node:fs';
import path from 'node:path';

/**
 * Every name src/ exports is named by some other file (src/, test/, bench/, scripts/, bin/):
 * an export nothing imports is dead code that looks like an API (isOwner, isNoDecision,
 * serverLabelOf and isUserFacing were). By word, not by resolving imports: a name that happens to
 * appear elsewhere passes, so this finds the plainly dead, never a false alarm about a used one.
 * An export used only in its own file is not reported (the export is only superfluous there).
 */

const ROOT = path.join(__dirname, '..');
const FOLDERS = ['src', 'test', 'bench', 'scripts', 'bin'];
const SKIP = new Set(['node_modules', 'dist', 'out']);

function filesUnder(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP.has(e.name)) filesUnder(p, out);
    } else if (/\.(ts|js|mjs|cjs)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** The names declared with `export` at the top of a file (functions, constants, classes, types). */
function exportedNames(text: string): string[] {
  const re = /^export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;
  return [...text.matchAll(re)].map((m) => m[1]);
}

/** `file name` for each name exported by a file of `sources` that no file of `texts` uses: no other names it, and its own only declares it. */
function deadExports(texts: Map<string, string>, sources: string[]): string[] {
  const filesOf = new Map<string, Set<string>>();
  for (const [file, text] of texts) {
    for (const w of new Set(text.match(/[A-Za-z_$][\w$]*/g) ?? [])) {
      let s = filesOf.get(w);
      if (!s) filesOf.set(w, (s = new Set()));
      s.add(file);
    }
  }
  const dead: string[] = [];
  for (const file of sources) {
    for (const name of exportedNames(texts.get(file) ?? '')) {
      const users = [...(filesOf.get(name) ?? [])].filter((f) => f !== file);
      const inOwnFile = (texts.get(file) ?? '').match(new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`, 'g'))?.length ?? 0;
      if (!users.length && inOwnFile <= 1) dead.push(`${file} ${name}`);
    }
  }
  return dead;
}

describe('dead exports', () => {
  it('finds an export no other file names, and only that', () => {
    const texts = new Map([
      ['a.ts', 'export function used() {}\nexport const dead = 1;\nexport interface Shape { x: number }\nexport type Alias = Shape;'],
      ['b.ts', "import { used } from './a';\nconst s: Alias = { x: used() };"],
    ]);
    expect(deadExports(texts, ['a.ts'])).toEqual(['a.ts dead']);
    // Named only in its own file beyond its declaration: used, its export merely superfluous.
    expect(deadExports(new Map([['c.ts', 'export const $x = 1;\nexport const y = $x + 1;']]), ['c.ts'])).toEqual(['c.ts y']);
  });

  it('src/ exports nothing that no other file names', () => {
    const files = FOLDERS.map((d) => path.join(ROOT, d))
      .filter((d) => fs.existsSync(d))
      .flatMap((d) => filesUnder(d))
      .filter((f) => f !== __filename); // its comment names the dead ones it was written for
    const texts = new Map(files.map((f) => [path.relative(ROOT, f).split(path.sep).join('/'), fs.readFileSync(f, 'utf8')]));
    const sources = [...texts.keys()].filter((f) => f.startsWith('src/') && f.endsWith('.ts'));
    expect(deadExports(texts, sources)).toEqual([]);
  });
});
