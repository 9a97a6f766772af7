import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { silentLogger } from '../../src/log/logger';
import { ChannelStore } from '../../src/memory/store';
import { makeTmpDir } from './tmp';

/**
 * Generators of what a file of the data root may hold after a disk fault, a half-finished copy or
 * a person's edit: random bytes, a valid file cut at a random point, valid JSON with one value
 * swapped for one of the wrong type (arrays for objects, numbers for strings, nulls), deep nesting
 * and huge strings. Shared by the property tests of every reader (test/*\/dataRootFuzz.test.ts).
 */

/** Any JSON value of a type a reader does not expect, deep nesting and huge strings included. */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.string(),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  fc.integer({ min: 1, max: 500 }).map(deepNesting),
  fc.integer({ min: 1, max: 200_000 }).map((n) => 'x'.repeat(n)),
);

function deepNesting(depth: number): unknown {
  let v: unknown = 'core';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { v };
  return v;
}

/** Every path to a value inside `v` (the root's is []). */
function paths(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

/** A copy of `v` with the value at `path` replaced (the root itself when the path is empty). */
function replaceAt(v: unknown, path: (string | number)[], next: unknown): unknown {
  if (!path.length) return next;
  const copy = structuredClone(v) as Record<string | number, unknown>;
  let cur = copy;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  cur[path[path.length - 1]] = next;
  return copy;
}

/** `valid` with one of its values (the whole at times) swapped for one of the wrong type, as JSON text. */
export function wrongTypes(valid: unknown): fc.Arbitrary<string> {
  const all = paths(valid);
  return fc.tuple(fc.integer({ min: 0, max: all.length - 1 }), wrongValue).map(([i, v]) => JSON.stringify(replaceAt(valid, all[i], v), null, 2) + '\n');
}

/** The text cut at a random point (a copy or a write that stopped part-way). */
export function truncated(text: string): fc.Arbitrary<string> {
  return fc.integer({ min: 0, max: Math.max(0, text.length - 1) }).map((n) => text.slice(0, n));
}

/** Random bytes, some not UTF-8, some with newlines. */
export const randomBytes: fc.Arbitrary<Buffer> = fc
  .oneof(
    fc.uint8Array({ maxLength: 300 }),
    fc.string({ unit: 'binary', maxLength: 200 }).map((s) => new TextEncoder().encode(s)),
  )
  .map((a) => Buffer.from(a));

/** JSON nested far deeper than any value can be built and stringified here: `{"v":[{"v":[…`. */
export const deepText: fc.Arbitrary<Buffer> = fc.integer({ min: 1_000, max: 100_000 }).map((depth) => Buffer.from('{"v":['.repeat(depth) + ']}'.repeat(depth)));

/** Anything a file that should hold `validText` (whose JSON value is `valid`, if any) may hold instead. */
export function damaged(validText: string, valid?: unknown): fc.Arbitrary<Buffer> {
  const options: fc.Arbitrary<Buffer>[] = [randomBytes, deepText, truncated(validText).map((t) => Buffer.from(t))];
  if (valid !== undefined) options.push(wrongTypes(valid).map((t) => Buffer.from(t)));
  return fc.oneof(...options);
}

/** Property-test runs per reader: enough to find a crash, few enough for two shared cores. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 60);

/**
 * A fresh data root per fuzz run (so one run's files never meet another's), all under one temp
 * folder the file's tests share; `put` writes bytes where a reader will find them.
 */
export function fuzzDataRoots(now: Date): { freshRoot(): { root: string; store: ChannelStore }; put(file: string, bytes: Buffer | string): void } {
  let tmp: ReturnType<typeof makeTmpDir>;
  let n = 0;
  beforeAll(() => {
    tmp = makeTmpDir('minutes-fuzz-');
  });
  afterAll(() => tmp.cleanup());
  return {
    freshRoot() {
      const root = path.join(tmp.dir, `r${n++}`);
      fs.mkdirSync(root);
      return { root, store: new ChannelStore({ root, clock: () => now, logger: silentLogger() }) };
    },
    put(file, bytes) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, bytes);
    },
  };
}
