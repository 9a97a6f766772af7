import matter from 'gray-matter';

/**
 * The product's one reader and writer of front matter (condensation files, context packages);
 * nothing else imports gray-matter (eslint.config.js says so).
 *
 * gray-matter picks its parser from the word after the opening `---` (`---js`, `--- javascript`,
 * `---JS`: the rest of the first line, trimmed, any case), and its `javascript` engine evals the
 * block. A file in the data root is written by people and by anyone who can put a file there, and it
 * is read inside the bot, the dashboard and `minutes mcp`: so only YAML is read here. A file whose
 * first line asks for anything else is malformed (FrontMatterError, naming the file) before
 * gray-matter sees it, and gray-matter is handed engines that refuse every other language besides.
 */

/** Front matter Minutes does not read: the file is skipped or refused, never evaluated. */
export class FrontMatterError extends Error {
  override readonly name = 'FrontMatterError';
  constructor(
    /** The file, as the caller names it (a path, or `package <name>`). */
    readonly file: string,
    /** What is wrong, in a few words. */
    readonly why: string,
  ) {
    super(`${file} has malformed front matter (${why}): start it with a line "---" and YAML, or remove the file`);
  }
}

export interface FrontMatter {
  /** The fields between the `---` lines ({} when there are none). */
  data: Record<string, unknown>;
  /** The text after the front matter. */
  content: string;
}

/** The languages after `---` that mean YAML (gray-matter's own aliases). */
const YAML_NAMES = new Set(['', 'yaml', 'yml']);

function refuse(language: string): { parse(): never; stringify(): never } {
  const fail = (): never => {
    throw new Error(`the ${language} front-matter engine is disabled`);
  };
  return { parse: fail, stringify: fail };
}

/**
 * Always this options object: without one gray-matter caches every input string forever. Every
 * engine gray-matter knows besides YAML (and each name it maps to one) refuses; YAML is its own
 * `safeLoad`, which builds plain values only.
 */
const OPTIONS = {
  language: 'yaml',
  engines: Object.fromEntries(['js', 'javascript', 'coffee', 'coffeescript', 'cson', 'json', 'toml'].map((l) => [l, refuse(l)])),
} as const;

/**
 * The language a text's first line asks for, found as gray-matter finds it: a leading BOM dropped,
 * `---` not followed by another `-`, then the rest of the first line, trimmed ('' when none).
 */
function askedLanguage(text: string): string {
  const s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!s.startsWith('---') || s.charAt(3) === '-') return '';
  return matter.language(s.slice(3)).name;
}

function printable(s: string): string {
  const short = s.length > 40 ? `${s.slice(0, 40)}…` : s;
  return JSON.stringify(short);
}

/** The text's front matter and body; throws FrontMatterError, naming `file`, for anything but YAML fields. */
export function readFrontMatter(text: string, file: string): FrontMatter {
  const language = askedLanguage(text);
  if (!YAML_NAMES.has(language.toLowerCase())) throw new FrontMatterError(file, `it asks for the ${printable(language)} parser; only YAML is read`);
  let parsed: matter.GrayMatterFile<string>;
  try {
    parsed = matter(text, OPTIONS);
  } catch (err) {
    throw new FrontMatterError(file, `its YAML does not parse: ${String((err as Error).message).split('\n')[0]}`);
  }
  const data: unknown = parsed.data ?? {};
  if (typeof data !== 'object' || Array.isArray(data)) throw new FrontMatterError(file, 'it is not a list of fields');
  return { data: data as Record<string, unknown>, content: parsed.content };
}

/** readFrontMatter for a caller that reports the problem itself: the error is returned, never thrown. */
export function frontMatterOrError(text: string, file: string): FrontMatter | FrontMatterError {
  try {
    return readFrontMatter(text, file);
  } catch (err) {
    if (err instanceof FrontMatterError) return err;
    throw err;
  }
}

/**
 * `---`, `data` as YAML, `---`, then `body`. The body is handed over as content, never parsed: a body
 * that itself starts with `---` is written as it is. `lineWidth: -1` keeps long values on one line.
 */
export function writeFrontMatter(body: string, data: Record<string, unknown>, o: { lineWidth?: number } = {}): string {
  const options = o.lineWidth === undefined ? OPTIONS : { ...OPTIONS, lineWidth: o.lineWidth };
  return matter.stringify({ content: body }, data, options as matter.GrayMatterOption<string, never>);
}
