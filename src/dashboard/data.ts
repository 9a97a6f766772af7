import { listNames, readTextOrNull, statOrNull } from '../memory/dataFiles';
import type { Conversation, ServerNames } from '../memory/dataRootIndex';
import path from 'node:path';
import { parseMemory, MemoryLine } from '../memory/entries';
import { FrontMatterError, frontMatterOrError } from '../memory/frontMatter';
import { ContextData } from '../condense/knowledge/contextData';
import { folderLayout } from '../memory/layout';

/**
 * The dashboard's units are the data root's conversations as its read model lists them
 * (memory/dataRootIndex.ts): a URL only ever names a key of that listing, never a path, so no
 * request can reach a file the listing did not find (no traversal).
 */
export type Unit = Conversation;

export interface Condensation {
  /** File name without `.md`: the id in URLs. */
  id: string;
  file: string;
  date: string;
  topic: string;
  decisionId?: string;
  supersedes: string[];
  supersededBy?: string;
  postUrl?: string;
  data: Record<string, unknown>;
  /** Why its front matter was not read (not YAML, or YAML that does not parse); `data` is then empty. */
  malformed?: string;
  body: string;
}

const COND_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.md$/;

function strList(v: unknown): string[] {
  return Array.isArray(v) ? v.map((x) => String(x)) : [];
}

function dateOf(v: unknown, fallback: string): string {
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return typeof v === 'string' ? v : fallback;
}

/**
 * Parsed files by path, reused while the file's size and mtime are unchanged: parsing 300
 * frontmatters costs more than stat-ing them. One per dashboard, passed in (no module state).
 */
export type ParseCache = Map<string, { sig: string; text: string; data: Record<string, unknown>; malformed?: string }>;

async function parsed(file: string, cache?: ParseCache): Promise<{ text: string; data: Record<string, unknown>; malformed?: string } | null> {
  let sig = '';
  if (cache) {
    const st = await statOrNull(file);
    if (!st) return null;
    sig = `${st.size}:${st.mtimeMs}`;
    const hit = cache.get(file);
    if (hit && hit.sig === sig) return hit;
  }
  const text = await readTextOrNull(file);
  if (text === null) return null;
  const fm = frontMatterOrError(text, `condensations/${path.basename(file)}`);
  const v = fm instanceof FrontMatterError ? { sig, text, data: {}, malformed: fm.message } : { sig, text, data: fm.data };
  cache?.set(file, v);
  return v;
}

/** The unit's condensations, oldest first, with `superseded by` filled from either side. */
export async function readCondensations(u: Unit, cache?: ParseCache): Promise<Condensation[]> {
  const dir = folderLayout(u.dir).condensations;
  const names = (await listNames(dir)).filter((n) => COND_NAME.test(n));
  const out: Condensation[] = [];
  await Promise.all(
    names.map(async (n) => {
      const f = await parsed(path.join(dir, n), cache);
      if (f === null) return;
      const { text } = f;
      const data = f.data;
      const body = text.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n?/, '');
      const id = n.slice(0, -3);
      out.push({
        id,
        file: n,
        date: dateOf(data.date, n.slice(0, 10)),
        topic: typeof data.topic === 'string' ? data.topic : id,
        decisionId: typeof data.decision_id === 'string' ? data.decision_id : undefined,
        supersedes: [...strList(data.supersedes_files), ...strList(data.supersedes)],
        supersededBy: typeof data.superseded_by === 'string' ? data.superseded_by : undefined,
        postUrl: typeof data.post_url === 'string' ? data.post_url : typeof data.link === 'string' ? data.link : undefined,
        data,
        ...(f.malformed ? { malformed: f.malformed } : {}),
        body,
      });
    }),
  );
  out.sort((a, b) => (a.date === b.date ? a.id.localeCompare(b.id) : a.date.localeCompare(b.date)));
  // Link both ways: `supersedes` may name a file or a decision id.
  const byRef = new Map<string, Condensation>();
  for (const c of out) {
    byRef.set(c.file, c);
    byRef.set(c.id, c);
    if (c.decisionId) byRef.set(c.decisionId, c);
  }
  for (const c of out) {
    c.supersedes = [...new Set(c.supersedes.map((s) => byRef.get(s)?.id ?? s))];
    for (const s of c.supersedes) {
      const old = byRef.get(s);
      if (old && !old.supersededBy) old.supersededBy = c.id;
    }
    if (c.supersededBy) c.supersededBy = byRef.get(c.supersededBy)?.id ?? c.supersededBy;
  }
  return out;
}

export async function readMemory(u: Unit): Promise<MemoryLine[]> {
  const text = await readTextOrNull(folderLayout(u.dir).memory);
  return text === null ? [] : parseMemory(text).filter((l) => l.kind === 'entry');
}

/** A server's recorded names (memory/dataRootIndex.ts reads them). */
export type Names = ServerNames;

/**
 * The unit's context.json (its decisions, action items, open questions, playbooks); null when it
 * has none or it does not parse (the audit on the home page says why).
 */
export async function readContextData(u: Unit): Promise<ContextData | null> {
  const text = await readTextOrNull(folderLayout(u.dir).contextData);
  if (text === null) return null;
  try {
    const v = ContextData.safeParse(JSON.parse(text));
    return v.success ? v.data : null;
  } catch {
    return null;
  }
}
