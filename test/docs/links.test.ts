import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/** README.md and every page under docs/, as paths relative to the project root. */
function manualPages(): string[] {
  const pages = ['README.md'];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.md')) pages.push(rel);
    }
  };
  walk('docs');
  return pages;
}

/** The text a reader sees as prose: fenced blocks and inline code are examples, not links. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Relative link targets (`[text](target)`, images too); web and mail addresses are left to the web. */
function relativeLinks(markdown: string): string[] {
  const targets = [...prose(markdown).matchAll(/!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of withoutFences.matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const text = m[1].replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n ? `${slug}-${n}` : slug);
  }
  return out;
}

/** What is wrong with one link of `page`: null when its file (and its #anchor, in a markdown file) exists. */
function brokenLink(page: string, target: string, read: (file: string) => string | null): string | null {
  const [file, anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = file ? path.normalize(path.join(path.dirname(page), decodeURIComponent(file))) : page;
  const text = read(resolved);
  if (text === null) return `${page}: ${target} (no file ${resolved})`;
  if (anchor && resolved.endsWith('.md') && !headingAnchors(text).has(decodeURIComponent(anchor).toLowerCase())) {
    return `${page}: ${target} (no heading #${anchor} in ${resolved})`;
  }
  return null;
}

function readFromDisk(file: string): string | null {
  const full = path.join(ROOT, file);
  if (!fs.existsSync(full)) return null;
  return fs.statSync(full).isFile() ? fs.readFileSync(full, 'utf8') : '';
}

describe('the manual: every relative link in README.md and docs/ leads somewhere', () => {
  const pages = manualPages();

  it('finds the pages and their links (so it cannot pass by reading nothing)', () => {
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'docs/configuration.md']));
    const readmeLinks = relativeLinks(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    expect(readmeLinks).toEqual(expect.arrayContaining(['docs/architecture.md', 'docs/configuration.md']));
  });

  it('every relative link points at a file that exists, and every #anchor at a heading of it', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of relativeLinks(fs.readFileSync(path.join(ROOT, page), 'utf8'))) {
        const problem = brokenLink(page, target, readFromDisk);
        if (problem) broken.push(problem);
      }
    }
    expect(broken).toEqual([]);
  });

  it('sees a missing file, a missing heading, and leaves code and web links alone', () => {
    const files: Record<string, string> = {
      'docs/a.md': '# Page A\n\n## The `minutes` command\n\n## Coding agents (MCP)\n\n## Notes\n\n## Notes\n',
    };
    const read = (f: string): string | null => files[f] ?? null;
    const page = [
      '[ok](a.md#the-minutes-command) [ok](a.md#coding-agents-mcp) [ok](a.md#notes-1) [ok](#page-b)',
      '[gone](b.md) [no heading](a.md#nowhere) [web](https://example.com/x.md) ![img](pic.png)',
      '`[in code](nothing.md)`',
      '```\n[in a fence](nothing.md)\n```',
      '# Page B',
    ].join('\n');
    files['docs/b-page.md'] = page;
    const problems = relativeLinks(page)
      .map((t) => brokenLink('docs/b-page.md', t, read))
      .filter(Boolean);
    expect(problems).toEqual([
      'docs/b-page.md: b.md (no file docs/b.md)',
      'docs/b-page.md: a.md#nowhere (no heading #nowhere in docs/a.md)',
      'docs/b-page.md: pic.png (no file docs/pic.png)',
    ]);
  });
});
