import fs from 'node:fs';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../log/logger';
import { Block, condensationBlocks, lineEntries, paragraphBlocks } from '../memory/markdownBlocks';
import { WORKSPACE_RESTAT_MS } from '../memory/statCachedFiles';
import { tokenize } from './tokenize';

/**
 * Where recall candidates come from, and the per-file parse cache.
 *
 * Sources, by precedence (lower rank wins when two candidates from different files say the same
 * thing): SESSION.md, MEMORY.md, condensations/*.md, the workspace MEMORY.md, HISTORY.md. With a
 * thread, its own folder comes before its parent's at the same kind. CONTEXT.md is never a source
 * (it is in the prompt whole).
 *
 * Each file is parsed once per (mtimeMs, size); a warm call only stats, a condensations folder's
 * files only when the folder changed or CONDENSATION_RESTAT_MS passed, and the workspace's
 * MEMORY.md (which the bot never writes) once per WORKSPACE_RESTAT_MS. Nothing here writes.
 */
export type SourceKind = 'session' | 'memory' | 'condensation' | 'workspace' | 'history';

export const KIND_RANK: Record<SourceKind, number> = { session: 0, memory: 1, condensation: 2, workspace: 3, history: 4 };

export interface Candidate {
  /** Label: `MEMORY.md`, `condensations/<name>`, `workspace/MEMORY.md`, `threads/<id>/SESSION.md`. */
  file: string;
  kind: SourceKind;
  /** Precedence: KIND_RANK * 16 + folder index (own folder first). Lower wins. */
  rank: number;
  heading: string;
  text: string;
  /** The text without bullet marker, entry id or provenance tag: what is embedded. */
  body: string;
  line: number;
  /** Days since 1970-01-01 of the entry's date, if it has one. */
  day?: number;
  /** Distinct body terms and their counts; body length in terms. */
  terms: string[];
  tfs: number[];
  len: number;
  headingTerms: string[];
  /** The entry carries its own provenance tag `[from: …]` (then its heading is not rendered). */
  tagged: boolean;
  /** Rendering group, computed on first use by pack.ts. */
  group?: { key: string; header: string };
  /** Whitespace-normalised text without bullet marker: compared with the caller's exclude set. */
  norm: string;
  /** The posted message a condensation line came from (its frontmatter's post_url). */
  link?: string;
}

export interface FsLike {
  statSync: typeof fs.statSync;
  readFileSync: typeof fs.readFileSync;
  readdirSync: typeof fs.readdirSync;
}

interface ParsedFile {
  mtimeMs: number;
  size: number;
  candidates: Candidate[];
}

interface SourceFile {
  abs: string;
  label: string;
  kind: SourceKind;
  rank: number;
  mtimeMs: number;
  size: number;
}

/** Larger files are skipped with a warning: memory files are meant to stay small. */
const MAX_FILE_BYTES = 32 * 1024 * 1024;
/** A single block longer than this can never be injected usefully; it is not a candidate. */
const MAX_BLOCK_CHARS = 20_000;
const MS_PER_DAY = 86_400_000;
const TAG_RE = /\[from:[^\]\n]*\]\s*$/;
/**
 * How long the stats of a condensations folder's files are reused while the folder itself is
 * unchanged. A year of condensations is ~300 files, and stat-ing each on every recall was most of a
 * recall's time (it grew with the channel's age). Minutes writes a file by rename, which changes the
 * folder, so its own writes show at once; a person's in-place edit of a file shows within this time.
 */
const CONDENSATION_RESTAT_MS = 2_000;

/**
 * Parsed files kept, least recently used dropped first, by their estimated size: a few year-old
 * channels (a few MB each) cannot push memory past the budget. With the indexes' 16 MB
 * (lexical.ts), ~40 MB at most. The estimate is generous: a 50-entry MEMORY.md (~8 KB) counts
 * ~73 KB and keeps ~41 KB of heap, so ~330 such channels stay parsed; beyond that a channel that
 * speaks again is parsed again (~0.9 ms with its index: `npm run bench:recall-channels`).
 */
const PARSED_CACHE_BYTES = 24 * 1024 * 1024;
/**
 * Listed folders and condensation sources kept, counted in file names: 100,000 is ~3,000 year-old
 * channels' condensations (~10 MB), and a folder dropped is only listed again.
 */
const LISTED_NAMES_MAX = 100_000;

/** A parsed file's memory, roughly: its candidates' strings (UTF-16) and term arrays. */
function parsedBytes(p: ParsedFile): number {
  let bytes = 256;
  for (const c of p.candidates) bytes += 256 + (c.text.length + c.body.length + c.norm.length + c.heading.length) * 2 + c.terms.length * 40;
  return bytes;
}

/** What identifies a file's version for the index: path, mtime and size. */
function sourceKey(s: SourceFile): string {
  return `${s.abs}\u0000${s.mtimeMs}\u0000${s.size}\u0001`;
}

const LIST_MARKER_RE = /^\s*(?:[-*+]|\d{1,3}[.)])\s+/;
/** Whitespace that collapsing runs to one space would change. */
const UNEVEN_SPACE_RE = /\s{2}|[^\S ]/;

export function normalizeForExclude(text: string): string {
  const marker = LIST_MARKER_RE.exec(text);
  const rest = marker ? text.slice(marker[0].length) : text;
  // Most lines are single-spaced: then a slice of the line (no copy for every candidate).
  return (UNEVEN_SPACE_RE.test(rest) ? rest.replace(/\s+/g, ' ') : rest).trim();
}

export function isoToDay(iso: string | undefined): number | undefined {
  if (!iso) return undefined;
  const t = Date.parse(iso + 'T00:00:00Z');
  return Number.isNaN(t) ? undefined : Math.floor(t / MS_PER_DAY);
}

export class SourceCache {
  private files = new LRUCache<string, ParsedFile>({ maxSize: PARSED_CACHE_BYTES, sizeCalculation: parsedBytes });
  private dirs = new LRUCache<string, { mtimeMs: number; names: string[] }>({ maxSize: LISTED_NAMES_MAX, sizeCalculation: (d) => d.names.length + 1 });
  /**
   * The workspace MEMORY.md's stat and when it was taken: shared by every channel and written only by
   * people, it is stat-ed once per WORKSPACE_RESTAT_MS, not on every turn of every channel.
   */
  private workspaceStats = new LRUCache<string, { at: number; st: { mtimeMs: number; size: number } | undefined }>({ max: 64 });
  /**
   * Per condensations folder, as seen from one conversation (a thread labels its parent's files
   * differently from the parent itself): its files as sources, their part of the index key, when
   * their stats were taken and the folder's mtime then. Reused as they are while nothing can have
   * changed, so a warm recall allocates nothing per condensation.
   */
  private condensationSources = new LRUCache<string, { dirMtimeMs: number; at: number; files: SourceFile[]; key: string }>({
    maxSize: LISTED_NAMES_MAX,
    sizeCalculation: (e) => e.files.length + 1,
  });

  constructor(
    private readonly logger: Logger,
    /** The file system: node:fs (a test may wrap it to count calls or make one fail). */
    private readonly fsx: FsLike = fs,
    /** A monotonic clock in ms (tests may pass their own). */
    private readonly monotonicMs: () => number = () => performance.now(),
  ) {}

  /**
   * Stats every source file; returns those that exist, in precedence order, and a key that changes
   * whenever one of them may have (the index is rebuilt only then).
   */
  listSources(channelDirs: string[], workspaceDir?: string): { files: SourceFile[]; key: string } {
    const files: SourceFile[] = [];
    let key = '';
    const base = channelDirs.length > 1 ? channelDirs[channelDirs.length - 1] : undefined;
    const labelFor = (dir: string, name: string): string => {
      if (!base || dir === base) return name;
      const rel = path.relative(base, path.join(dir, name));
      return rel.startsWith('..') || path.isAbsolute(rel) ? `${path.basename(dir)}/${name}` : rel.split(path.sep).join('/');
    };
    const push = (f: SourceFile) => {
      files.push(f);
      key += sourceKey(f);
    };
    channelDirs.forEach((dir, di) => {
      const rank = (kind: SourceKind) => KIND_RANK[kind] * 16 + Math.min(di, 15);
      for (const [name, kind] of [
        ['SESSION.md', 'session'],
        ['MEMORY.md', 'memory'],
        ['HISTORY.md', 'history'],
      ] as const) {
        const abs = path.join(dir, name);
        const st = this.stat(abs);
        if (st) push({ abs, label: labelFor(dir, name), kind, rank: rank(kind), ...st });
      }
      const cond = this.condensationFiles(path.join(dir, 'condensations'), `${di}\u0000${base ?? ''}`, (abs, name, st) => ({
        abs,
        label: labelFor(dir, `condensations/${name}`),
        kind: 'condensation',
        rank: rank('condensation'),
        ...st,
      }));
      for (const f of cond.files) files.push(f);
      key += cond.key;
    });
    if (workspaceDir) {
      const abs = path.join(workspaceDir, 'MEMORY.md');
      const st = this.workspaceStat(abs);
      if (st) push({ abs, label: 'workspace/MEMORY.md', kind: 'workspace', rank: KIND_RANK.workspace * 16, ...st });
    }
    return { files, key };
  }

  candidates(src: SourceFile): Candidate[] {
    const hit = this.files.get(src.abs);
    if (hit && hit.mtimeMs === src.mtimeMs && hit.size === src.size) return hit.candidates;
    const candidates = this.parse(src);
    this.files.set(src.abs, { mtimeMs: src.mtimeMs, size: src.size, candidates });
    return candidates;
  }

  private workspaceStat(abs: string): { mtimeMs: number; size: number } | undefined {
    const now = this.monotonicMs();
    const hit = this.workspaceStats.get(abs);
    if (hit && now - hit.at < WORKSPACE_RESTAT_MS) return hit.st;
    const st = this.stat(abs);
    this.workspaceStats.set(abs, { at: now, st });
    return st;
  }

  private stat(abs: string): { mtimeMs: number; size: number } | undefined {
    try {
      const st = this.fsx.statSync(abs, { throwIfNoEntry: false });
      if (!st || !st.isFile()) return undefined;
      return { mtimeMs: st.mtimeMs, size: st.size };
    } catch (err) {
      this.logger.warn({ err, file: abs }, 'recall: cannot stat a memory file; skipping it');
      return undefined;
    }
  }

  /** The folder's condensation files as sources, re-stat-ed only when they may have changed. */
  private condensationFiles(
    dir: string,
    labelsFor: string,
    source: (abs: string, name: string, st: { mtimeMs: number; size: number }) => SourceFile,
  ): { files: SourceFile[]; key: string } {
    const names = this.condensationNames(dir);
    const dirMtimeMs = this.dirs.get(dir)?.mtimeMs;
    const cacheKey = `${dir}\u0001${labelsFor}`;
    if (dirMtimeMs === undefined) {
      this.condensationSources.delete(cacheKey);
      return { files: [], key: '' };
    }
    const now = this.monotonicMs();
    const hit = this.condensationSources.get(cacheKey);
    if (hit && hit.dirMtimeMs === dirMtimeMs && now - hit.at < CONDENSATION_RESTAT_MS) return hit;
    const files: SourceFile[] = [];
    for (const name of names) {
      const abs = path.join(dir, name);
      const st = this.stat(abs);
      if (st) files.push(source(abs, name, st));
    }
    const entry = { dirMtimeMs, at: now, files, key: files.map(sourceKey).join('') };
    this.condensationSources.set(cacheKey, entry);
    return entry;
  }

  private condensationNames(dir: string): string[] {
    let st: fs.Stats | undefined;
    try {
      st = this.fsx.statSync(dir, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    if (!st || !st.isDirectory()) {
      this.dirs.delete(dir);
      return [];
    }
    const hit = this.dirs.get(dir);
    if (hit && hit.mtimeMs === st.mtimeMs) return hit.names;
    let names: string[] = [];
    try {
      names = (this.fsx.readdirSync(dir) as string[]).filter((n) => n.endsWith('.md') && !n.startsWith('.')).sort();
    } catch (err) {
      this.logger.warn({ err, dir }, 'recall: cannot list condensations; skipping them');
    }
    this.dirs.set(dir, { mtimeMs: st.mtimeMs, names });
    return names;
  }

  private parse(src: SourceFile): Candidate[] {
    try {
      if (src.size > MAX_FILE_BYTES) {
        this.logger.warn({ file: src.abs, size: src.size }, 'recall: memory file too large; skipping it');
        return [];
      }
      let text = this.fsx.readFileSync(src.abs, 'utf8') as string;
      const nuls = countNul(text);
      if (nuls > 0) {
        // A stray NUL (a paste, an editor crash) costs that character, not the channel's memory;
        // a file that is mostly NULs and control bytes is not markdown at all.
        if (nuls > Math.max(8, text.length / 100)) {
          this.logger.warn({ file: src.abs }, 'recall: memory file looks binary; skipping it');
          return [];
        }
        text = text.replace(/\u0000/g, '');
      }
      let blocks: Block[] | null;
      switch (src.kind) {
        case 'memory':
        case 'workspace':
          blocks = lineEntries(text);
          break;
        case 'condensation':
          blocks = condensationBlocks(text, path.basename(src.abs));
          if (blocks === null) {
            this.logger.warn({ file: src.abs }, 'recall: condensation has malformed front matter (never run); skipping the file');
            blocks = [];
          }
          break;
        default:
          blocks = paragraphBlocks(text);
      }
      const out: Candidate[] = [];
      const headingTermsCache = new Map<string, string[]>();
      // One map for every block's term counts (a map per block was a parse's largest garbage).
      const counts = new Map<string, number>();
      for (const b of blocks) {
        if (b.text.length > MAX_BLOCK_CHARS || isPlaceholder(b.body)) continue;
        const toks = tokenize(b.body);
        if (toks.length === 0) continue;
        counts.clear();
        for (const t of toks) counts.set(t, (counts.get(t) ?? 0) + 1);
        let ht = headingTermsCache.get(b.heading);
        if (!ht) {
          ht = Array.from(new Set(tokenize(b.heading)));
          headingTermsCache.set(b.heading, ht);
        }
        out.push({
          file: src.label,
          kind: src.kind,
          rank: src.rank,
          heading: b.heading,
          text: b.text,
          body: b.body,
          line: b.line,
          day: isoToDay(b.date),
          terms: Array.from(counts.keys()),
          tfs: Array.from(counts.values()),
          len: toks.length,
          headingTerms: ht,
          norm: normalizeForExclude(b.text),
          tagged: TAG_RE.test(b.text),
          ...(b.link ? { link: b.link } : {}),
        });
      }
      return out;
    } catch (err) {
      this.logger.warn({ err, file: src.abs }, 'recall: cannot read a memory file; skipping it');
      return [];
    }
  }
}

/**
 * A template's stand-in for "nothing here yet" ("(no active task)", "- (none)", "_Nothing condensed
 * yet._", "TBD"): never a candidate. A sentence model scores every short, empty message close to such
 * a line, so "ping" recalled "(no active task)".
 */
export function isPlaceholder(body: string): boolean {
  const t = body.replace(/[*_`~]/g, '').trim();
  if (!/[\p{L}\p{N}]/u.test(t)) return true;
  if (/^\(.*\)\.?$|^\[.*\]\.?$/.test(t) && t.split(/\s+/).length <= 5) return true;
  return /^(?:none|n\/a|tbd|todo|empty|nothing(?: (?:here|condensed|recorded|to report))?(?: yet)?)\.?$/i.test(t);
}

function countNul(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\u0000'); i >= 0; i = text.indexOf('\u0000', i + 1)) n++;
  return n;
}
