import { nonEntryLines } from './entries';
import { FrontMatterError, frontMatterOrError } from './frontMatter';
import { BULLET, FENCE, findProvenance, frontmatterEnd, HEADING, ID_PREFIX, ISO_DATE, STRUCK_LINE, withoutProvenance } from './grammar';

/**
 * Splitting memory files into recall candidates. Plain line scanners: they work on any markdown a
 * person writes, never throw, and never parse a file as CommonMark.
 *
 * - `lineEntries` (MEMORY.md, workspace MEMORY.md): every non-empty line that is not a heading is one
 *   entry, bullet or not.
 * - `paragraphBlocks` (SESSION.md, HISTORY.md): a paragraph, a list item or a fenced code block under
 *   its heading path.
 * - `condensationBlocks` (condensations/*.md): each `**Label:** text` line, with the condensation's
 *   topic as heading; other paragraphs too. A condensation whose frontmatter sets `superseded_by`
 *   yields nothing.
 *
 * Struck-through lines (`~~…~~` at the start of the text, the superseded form) are never candidates.
 */
export interface Block {
  /** Heading path, outermost first, joined with " › " (a lone document-title H1 is dropped). */
  heading: string;
  /** The source text verbatim: one line, or the lines of one paragraph joined by "\n". */
  text: string;
  /** The text with bullet marker, entry id and provenance tag removed: what is scored. */
  body: string;
  /** 0-based line of the block's first line in the file. */
  line: number;
  /** ISO date (YYYY-MM-DD) from the provenance tag, else the heading path, else the file. */
  date?: string;
  /** Where the block was posted (a condensation's pinned message), so an answer can cite it. */
  link?: string;
}

const HEADING_RE = HEADING;
const BULLET_RE = BULLET;
const ID_RE = ID_PREFIX;
const STRUCK_RE = STRUCK_LINE;
const COMMENT_RE = /^\s*<!--.*-->\s*$/;
const ISO_DATE_RE = ISO_DATE;
const FENCE_RE = FENCE;
const LABEL_RE = /^\s*(?:[-*+]\s+)?\*\*[^*\n]{1,80}:\*\*/;

class HeadingPath {
  private stack: { level: number; text: string; date?: string }[] = [];
  push(level: number, text: string): void {
    while (this.stack.length && this.stack[this.stack.length - 1].level >= level) this.stack.pop();
    this.stack.push({ level, text, date: ISO_DATE_RE.exec(text)?.[1] });
  }
  get heading(): string {
    const parts = this.stack.length > 1 ? this.stack.filter((h) => h.level !== 1) : this.stack;
    return parts.map((h) => h.text).join(' › ');
  }
  get date(): string | undefined {
    for (let i = this.stack.length - 1; i >= 0; i--) if (this.stack[i].date) return this.stack[i].date;
    return undefined;
  }
}

export function isStruck(line: string): boolean {
  return STRUCK_RE.test(line);
}

/** Text to score: no bullet marker, entry id or provenance tag. */
export function entryBody(text: string): string {
  let t = text.replace(BULLET_RE, '');
  t = t.replace(ID_RE, '');
  t = withoutProvenance(t);
  return t;
}

function provenanceDate(text: string): string | undefined {
  const m = findProvenance(text);
  if (!m) return undefined;
  const d = ISO_DATE_RE.exec(m.source);
  return d ? d[1] : undefined;
}

export function lineEntries(text: string, fileDate?: string): Block[] {
  const lines = text.split(/\r?\n/);
  const out: Block[] = [];
  const path = new HeadingPath();
  const skip = nonEntryLines(lines);
  for (let i = frontmatterEnd(lines); i < lines.length; i++) {
    const raw = lines[i];
    if (skip[i] || COMMENT_RE.test(raw)) continue;
    const h = HEADING_RE.exec(raw);
    if (h) {
      path.push(h[1].length, h[2]);
      continue;
    }
    if (isStruck(raw)) continue;
    const verbatim = raw.trim();
    out.push({
      heading: path.heading,
      text: verbatim,
      body: entryBody(verbatim),
      line: i,
      date: provenanceDate(verbatim) ?? path.date ?? fileDate,
    });
  }
  return out;
}

export function paragraphBlocks(text: string, fileDate?: string, opts: { splitLabels?: boolean; startLine?: number; rootHeading?: string } = {}): Block[] {
  const lines = text.split(/\r?\n/);
  const out: Block[] = [];
  const path = new HeadingPath();
  if (opts.rootHeading) path.push(0, opts.rootHeading);
  let cur: { start: number; lines: string[] } | null = null;
  const flush = (): void => {
    if (!cur) return;
    const verbatim = trimBlock(cur.lines);
    const first = cur.lines[0] ?? '';
    if (verbatim && !isStruck(first) && !cur.lines.every((l) => COMMENT_RE.test(l) || l.trim() === '')) {
      const body = cur.lines.length === 1 ? entryBody(verbatim) : verbatim;
      out.push({
        heading: path.heading,
        text: verbatim,
        body,
        line: cur.start + (opts.startLine ?? 0),
        date: provenanceDate(verbatim) ?? path.date ?? fileDate,
      });
    }
    cur = null;
  };
  let i = opts.startLine === undefined ? frontmatterEnd(lines) : 0;
  for (; i < lines.length; i++) {
    const raw = lines[i];
    if (FENCE_RE.test(raw)) {
      // A fenced block is one candidate, blank lines and all.
      flush();
      const fence = FENCE_RE.exec(raw)![1];
      const start = i;
      const buf = [raw];
      for (i++; i < lines.length; i++) {
        buf.push(lines[i]);
        if (lines[i].trim().startsWith(fence)) break;
      }
      cur = { start, lines: buf };
      flush();
      continue;
    }
    if (raw.trim() === '' || COMMENT_RE.test(raw)) {
      flush();
      continue;
    }
    const h = HEADING_RE.exec(raw);
    if (h) {
      flush();
      path.push(h[1].length, h[2]);
      continue;
    }
    const startsItem = BULLET_RE.test(raw) || (opts.splitLabels === true && LABEL_RE.test(raw));
    if (startsItem) flush();
    if (!cur) cur = { start: i, lines: [] };
    cur.lines.push(raw);
  }
  flush();
  return out;
}

function trimBlock(lines: string[]): string {
  // Verbatim, but without the blank edges.
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a].trim() === '') a++;
  while (b > a && lines[b - 1].trim() === '') b--;
  const t = lines.slice(a, b).join('\n');
  return t.replace(/^\s+/, '').replace(/\s+$/, '');
}

/**
 * Condensation files: YAML frontmatter (frontMatter.ts), `## 📝 Condensation: <Topic>` heading,
 * `**Label:**` lines. Returns null when the frontmatter is malformed (not YAML, or YAML that does not
 * parse): then we cannot know whether the file was superseded, so the caller skips it rather than
 * risk recalling a superseded decision.
 */
export function condensationBlocks(text: string, fileName: string): Block[] | null {
  const parsed = frontMatterOrError(text, fileName);
  if (parsed instanceof FrontMatterError) return null;
  const { data, content } = parsed;
  let bodyStart = 0;
  if (content !== text) {
    const idx = text.lastIndexOf(content);
    bodyStart = idx > 0 ? text.slice(0, idx).split(/\r?\n/).length - 1 : 0;
  }
  const sup = data.superseded_by;
  if (sup !== undefined && sup !== null && sup !== '' && sup !== false) return [];
  const fileDate = toIsoDate(data.date) ?? ISO_DATE_RE.exec(fileName)?.[1];
  const topicLine = /^\s{0,3}#{1,6}\s+(?:📝\s*)?Condensation:\s*(.+?)\s*$/mu.exec(content);
  const topic =
    topicLine?.[1] ??
    (typeof data.topic === 'string' ? data.topic : undefined) ??
    (typeof data.title === 'string' ? data.title : undefined) ??
    fileName.replace(/\.md$/, '');
  const lines = content.split(/\r?\n/);
  // Drop the condensation heading itself; the topic becomes the root heading of every block.
  const filtered = lines.map((l) => (topicLine && l.trim() === topicLine[0].trim() ? '' : l));
  // Only a web link: the frontmatter is written by us but may be edited by anyone.
  const link = typeof data.post_url === 'string' && /^https?:\/\/[^\s<>]+$/.test(data.post_url) ? data.post_url : undefined;
  return paragraphBlocks(filtered.join('\n'), fileDate, { splitLabels: true, startLine: bodyStart, rootHeading: topic }).map((b) => ({
    ...b,
    heading: b.heading || topic,
    ...(link ? { link } : {}),
  }));
}

function toIsoDate(v: unknown): string | undefined {
  if (v instanceof Date && !Number.isNaN(v.getTime())) return v.toISOString().slice(0, 10);
  if (typeof v === 'string') return ISO_DATE_RE.exec(v)?.[1];
  return undefined;
}
