import fc from 'fast-check';
import matter from 'gray-matter';
import { FrontMatterError, frontMatterOrError, readFrontMatter, writeFrontMatter } from '../../src/memory/frontMatter';

/**
 * The one front-matter reader (issue 40 §2): YAML only. Whatever a file's first line asks for after
 * `---`, its block is never evaluated; anything but YAML is a FrontMatterError naming the file.
 */
const FLAG = '__minutesFrontMatterUnit';
const flagged = () => (globalThis as Record<string, unknown>)[FLAG] === true;
const block = `{ x: (globalThis.${FLAG} = true, 2) }`;
afterEach(() => {
  delete (globalThis as Record<string, unknown>)[FLAG];
});

describe('readFrontMatter', () => {
  test.each([
    '---js',
    '--- js',
    '---JS',
    '---Js ',
    '---javascript',
    '---\tjavascript',
    '---coffee',
    '---cson',
    '---json',
    '---toml',
    '---\ufeffjs',
    '---constructor',
    '---toString',
    '---__proto__',
    '---hasOwnProperty',
    '---anything',
  ])('%j is malformed, names the file and runs nothing', (open) => {
    for (const text of [`${open}\n${block}\n---\nbody\n`, `${open}\r\n${block}\r\n---\r\nbody\r\n`, `\ufeff${open}\n${block}\n---\nbody\n`]) {
      const r = frontMatterOrError(text, 'condensations/2026-01-01-x.md');
      expect(r).toBeInstanceOf(FrontMatterError);
      expect((r as FrontMatterError).message).toMatch(
        /^condensations\/2026-01-01-x\.md has malformed front matter \(it asks for the ".*" parser; only YAML is read\): /,
      );
      expect(flagged()).toBe(false);
    }
  });

  test('whatever follows `---` on the first line, the block is never evaluated (property)', () => {
    const lang = fc.oneof(
      fc.constantFrom('js', 'javascript', 'JavaScript', 'coffee', 'json', 'yaml', 'yml', 'YAML', '', 'constructor', '__proto__', 'valueOf'),
      fc.string({ maxLength: 12 }),
    );
    const pad = fc.constantFrom('', ' ', '\t', '\u00a0', '\ufeff', '  ');
    fc.assert(
      fc.property(pad, lang, pad, fc.boolean(), (a, l, b, bom) => {
        const first = `---${a}${l}${b}`;
        const text = `${bom ? '\ufeff' : ''}${first}\n${block}\n---\nbody\n`;
        const r = frontMatterOrError(text, 'f.md');
        expect(flagged()).toBe(false);
        if (!(r instanceof FrontMatterError)) {
          // Read at all, it was read as YAML: a plain mapping, or no front matter.
          expect(typeof r.data).toBe('object');
          expect(Array.isArray(r.data)).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });

  test('YAML front matter is read: with or without the word yaml, a BOM or CRLF', () => {
    for (const text of [
      '---\ntopic: Orders\n---\nbody\n',
      '---yaml\ntopic: Orders\n---\nbody\n',
      '--- yml\ntopic: Orders\n---\nbody\n',
      '\ufeff---\r\ntopic: Orders\r\n---\r\nbody\r\n',
    ]) {
      const r = readFrontMatter(text, 'f.md');
      expect(r.data).toEqual({ topic: 'Orders' });
      expect(r.content.replace(/\r\n/g, '\n')).toBe('body\n');
    }
    expect(readFrontMatter('no front matter\n', 'f.md')).toEqual({ data: {}, content: 'no front matter\n' });
    expect(readFrontMatter('---\n---\nbody', 'f.md')).toEqual({ data: {}, content: 'body' });
  });

  test("YAML's own tags that would build code are refused, and values that are not fields are malformed", () => {
    expect(() => readFrontMatter('---\nf: !!js/function "function () { return 1 }"\n---\n', 'f.md')).toThrow(
      /f\.md has malformed front matter \(its YAML does not parse: /,
    );
    expect(() => readFrontMatter('---\ntopic: [unclosed\n---\n', 'f.md')).toThrow(FrontMatterError);
    expect(() => readFrontMatter('---\n- a\n- b\n---\n', 'f.md')).toThrow(/not a list of fields/);
    expect(() => readFrontMatter('---\njust words\n---\n', 'f.md')).toThrow(/not a list of fields/);
  });

  test("gray-matter's cache of input strings stays empty (an options object on every call)", () => {
    // Not in gray-matter's types: the cache and its reset are plain properties of the function.
    const gm = matter as unknown as { cache: Record<string, unknown>; clearCache(): void };
    gm.clearCache();
    for (let i = 0; i < 5; i++) readFrontMatter(`---\nn: ${i}\n---\nbody ${i}\n`, 'f.md');
    writeFrontMatter('body\n', { n: 1 });
    expect(Object.keys(gm.cache)).toEqual([]);
    matter('---\nn: 1\n---\n');
    expect(Object.keys(gm.cache)).toHaveLength(1);
    gm.clearCache();
  });
});

describe('writeFrontMatter', () => {
  test('writes what gray-matter wrote before, byte for byte, and reads back', () => {
    const data = { date: '2026-11-24', topic: 'A long topic '.repeat(10).trim(), participants: ['al', 'bo'], budget: { max_items: 8 } };
    const body = '## 📝 Condensation: Database\n**Decision:** Postgres\n';
    expect(writeFrontMatter(body, data)).toBe(matter.stringify(body, data, {}));
    expect(writeFrontMatter(body, data, { lineWidth: -1 })).toBe(matter.stringify(body, data, { lineWidth: -1 } as matter.GrayMatterOption<string, never>));
    expect(readFrontMatter(writeFrontMatter(body, data, { lineWidth: -1 }), 'f.md')).toEqual({ data, content: body });
  });

  test('a body that starts like front matter is written as it is, never parsed', () => {
    const body = `---js\n${block}\n---\ntext\n`;
    const text = writeFrontMatter(body, { topic: 'x' });
    expect(flagged()).toBe(false);
    expect(readFrontMatter(text, 'f.md')).toEqual({ data: { topic: 'x' }, content: body });
  });
});
