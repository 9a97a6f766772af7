import { FrontMatterError, frontMatterOrError } from '../memory/frontMatter';
import { readCondensationFile } from '../memory/condensationFiles';
import { parseMemory } from '../memory/entries';
import { ENTRY_ID, findProvenance, ID_PREFIX, ISO_DATE, BULLET } from '../memory/grammar';
import { recallDirs } from '../memory/layout';
import { entryBody, paragraphBlocks } from '../memory/markdownBlocks';
import type { ChannelRef } from '../memory/paths';
import type { ChannelStore } from '../memory/store';
import type { SearchRequest } from '../recall/service';
import { queryTokens, tokenize } from '../recall/tokenize';
import type { RecallItem } from '../recall/types';
import { DEFAULT_TUNING } from '../recall/tuning';
import { stripInternalMarkers } from '../shared/markers';
import { redactSecrets } from '../shared/secrets';
import { PackageError } from './errors';
import { MAX_ITEM_CHARS, oneLine, PackageItem, PackageRecipe } from './model';
import { durableLabel } from './refs';

/**
 * Running a package's recipes over its source conversation: the candidates in the order they would
 * be taken (named items first as named, then a query's matches best first), each with provenance.
 * Secrets are redacted here, before anything is kept. The budget is applied by the caller.
 */
export interface GatherDeps {
  store: ChannelStore;
  /** A person's explicit search over memory (recall's: never abstains), over the given folders. */
  search: (req: SearchRequest) => Promise<RecallItem[]>;
}

/** Matches asked of the search per query: more than any budget keeps, so near-duplicates can be skipped. */
const QUERY_MATCHES = 100;
/** A match scoring under this share of the best one is noise for a package (a word of the channel's name, say). */
const RELATIVE_FLOOR = 0.2;
/** A line found by meaning alone joins a package only this close to the query: recall's own floor, in the embedder's units (recall/tuning.ts). */
const MIN_MEANING = DEFAULT_TUNING.denseFloor;
/** A condensation's bookkeeping lines: who, when, where. Provenance, not something to know. */
const BOOKKEEPING = /^\s*(?:[-*+]\s+)?\*\*(?:(?:Date|Channel|Participants):\*\*|Supersedes:\*\*\s*none\s*$)/i;
/** Two items sharing this share of the smaller one's words say the same thing: the second is dropped. */
const DUPLICATE_SHARE = 0.8;

export async function gatherItems(deps: GatherDeps, from: ChannelRef, recipes: PackageRecipe[]): Promise<PackageItem[]> {
  const out: PackageItem[] = [];
  const seen: Set<string>[] = [];
  const take = (it: PackageItem) => {
    const text = cut(redactSecrets(it.text.replace(/\r/g, '')).trim());
    if (!text) return;
    const words = new Set(tokenize(text));
    if (seen.some((s) => sameWords(s, words))) return;
    seen.push(words);
    out.push({ ...it, text, ...(it.entry ? { entry: oneLine(redactSecrets(it.entry), 120) } : {}) });
  };
  for (const [i, r] of recipes.entries()) {
    const recipe = i + 1;
    if (r.kind === 'items') for (const name of r.items) take({ ...(await namedItem(deps.store, from, name)), recipe });
    else for (const it of await queryItems(deps, from, r.query)) take({ ...it, recipe });
  }
  return out;
}

type Found = Omit<PackageItem, 'recipe'>;

/** A query over the conversation's memory files (recall's search) and its CONTEXT.md, best first. */
async function queryItems(deps: GatherDeps, from: ChannelRef, query: string): Promise<Found[]> {
  const p = deps.store.paths(from);
  const hits = await deps.search({ channelDirs: recallDirs(p, deps.store.root).channelDirs, query, limit: QUERY_MATCHES });
  const terms = new Set(queryTokens(query));
  // A package rides in every prompt of its conversations, so it is pickier than a person's search:
  // a line must share a word with the query in its own text (not only in its heading) or be close
  // in meaning, and a condensation's bookkeeping lines (date, channel, people) are never knowledge.
  const relevant = (h: RecallItem) =>
    !BOOKKEEPING.test(h.text) && (tokenize(entryBody(h.text)).some((t) => terms.has(t)) || (h.meaning ?? -Infinity) >= MIN_MEANING);
  const top = hits[0]?.score ?? 0;
  const scored: { score: number; order: number; item: Found }[] = hits
    .filter((h) => h.score >= top * RELATIVE_FLOOR && relevant(h))
    .map((h, order) => ({ score: h.score, order: order + 1_000, item: fromHit(from, h) }));
  const context = (await deps.store.read(from, 'CONTEXT.md')) ?? '';
  if (terms.size) {
    paragraphBlocks(stripInternalMarkers(context)).forEach((b, order) => {
      const words = new Set(tokenize(b.body));
      const matched = [...terms].filter((t) => words.has(t)).length;
      if (!matched) return;
      const item: Found = {
        text: b.text.replace(BULLET, ''),
        channel: labelOfContext(from),
        file: 'CONTEXT.md',
        ...(b.heading ? { entry: b.heading } : {}),
        ...dated(b.text),
      };
      // CONTEXT.md's decisions are in force: on a tie they come before a memory line saying the same.
      scored.push({ score: matched / terms.size, order, item });
    });
  }
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  return scored.map((s) => s.item);
}

/** A search hit with its provenance: the folder it is in, the file, the entry id or heading, the date. */
function fromHit(from: ChannelRef, h: RecallItem): Found {
  // Labels are relative to the channel folder: `threads/<id>/SESSION.md` is a thread's own file.
  const thread = /^threads\/([0-9]{1,20})\/(.+)$/.exec(h.file);
  const channel = thread ? `${labelOfContext(from)}/threads/${thread[1]}` : labelOfContext(from);
  const file = thread ? thread[2] : h.file;
  if (/(^|\/)MEMORY\.md$/.test(file)) {
    const line = h.text.replace(BULLET, '');
    const id = ID_PREFIX.exec(line)?.[1];
    return { text: entryBody(h.text).trim(), channel, file, ...(id ? { entry: id } : {}), ...dated(findProvenance(h.text)?.source ?? '') };
  }
  const date = ISO_DATE.exec(file)?.[1] ?? ISO_DATE.exec(h.heading)?.[1];
  return { text: h.text, channel, file, ...(h.heading ? { entry: h.heading } : {}), ...(date ? { date } : {}) };
}

/**
 * One item named by a person: a MEMORY.md entry id (`m-1a2b3c`), a condensation file
 * (`2026-11-16-orders-database.md`, with or without `condensations/`), or a CONTEXT.md section
 * (`CONTEXT.md#key-decisions`: its heading, any case, spaces as dashes).
 */
async function namedItem(store: ChannelStore, from: ChannelRef, name: string): Promise<Found> {
  const p = store.paths(from);
  if (ENTRY_ID.test(name)) {
    const entry = parseMemory((await store.read(from, 'MEMORY.md')) ?? '').find((l) => l.kind === 'entry' && l.id === name);
    if (!entry)
      throw new PackageError(
        'unknown-item',
        `no MEMORY.md entry ${name} in ${durableLabel(from)}: /memory (or minutes search) shows the entries and their ids`,
      );
    if (entry.superseded)
      throw new PackageError('unknown-item', `${name} is superseded${entry.supersededBy ? ` by ${entry.supersededBy}` : ''}: name the entry in force instead`);
    return { text: entry.text, channel: durableLabel(from), file: 'MEMORY.md', entry: name, ...(entry.date ? { date: entry.date } : {}) };
  }
  const cond = /^(?:condensations\/)?([A-Za-z0-9][A-Za-z0-9._-]{0,200}\.md)$/.exec(name);
  if (cond && name !== 'CONTEXT.md') {
    const text = await readCondensationFile(p.condensations, cond[1]);
    if (text === null) throw new PackageError('unknown-item', `no condensation ${cond[1]} in ${durableLabel(from)}: /condensations lists them`);
    const parsed = frontMatterOrError(text, `condensations/${cond[1]} of ${durableLabel(from)}`);
    if (parsed instanceof FrontMatterError) throw new PackageError('unknown-item', parsed.message);
    const by = parsed.data.superseded_by;
    if (by) throw new PackageError('unknown-item', `condensation ${cond[1]} was superseded by ${String(by)}: name that one instead`);
    return { text: stripInternalMarkers(parsed.content).trim(), channel: durableLabel(from), file: `condensations/${cond[1]}`, ...dated(cond[1]) };
  }
  const section = /^CONTEXT\.md#(.+)$/i.exec(name);
  if (section) {
    const context = stripInternalMarkers((await store.read(from, 'CONTEXT.md')) ?? '');
    const sections = [...context.matchAll(/^##\s+(.+?)\s*$/gm)].map((m) => m[1]);
    const heading = sections.find((s) => slug(s) === slug(section[1]));
    if (!heading) {
      const known = sections.map((s) => `CONTEXT.md#${slug(s)}`).join(', ');
      throw new PackageError('unknown-item', `CONTEXT.md of ${labelOfContext(from)} has no section "${section[1]}"${known ? `: it has ${known}` : ' yet'}`);
    }
    const body = sectionBody(context, heading);
    return { text: body || '(empty)', channel: labelOfContext(from), file: 'CONTEXT.md', entry: heading };
  }
  throw new PackageError(
    'unknown-item',
    `unknown item "${oneLine(name, 80)}": name a MEMORY.md entry (m-1a2b3c), a condensation file (2026-11-16-topic.md) or a CONTEXT.md section (CONTEXT.md#key-decisions)`,
  );
}

/** The channel folder's label: CONTEXT.md is the parent channel's, also for a thread (private or not). */
function labelOfContext(from: ChannelRef): string {
  return from.kind === 'local' ? durableLabel(from) : `${from.guildId}/${from.channelId}`;
}

function sectionBody(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => /^##\s+/.test(l) && l.replace(/^##\s+/, '').trim() === heading);
  const end = lines.findIndex((l, i) => i > start && /^#{1,2}\s+/.test(l));
  return lines
    .slice(start + 1, end < 0 ? undefined : end)
    .join('\n')
    .trim();
}

export function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-|-$/g, '');
}

function dated(text: string): { date?: string } {
  const d = ISO_DATE.exec(text)?.[1];
  return d ? { date: d } : {};
}

function sameWords(a: Set<string>, b: Set<string>): boolean {
  const small = a.size <= b.size ? a : b;
  const large = small === a ? b : a;
  if (!small.size) return false;
  let shared = 0;
  for (const w of small) if (large.has(w)) shared++;
  return shared / small.size >= DUPLICATE_SHARE;
}

function cut(text: string): string {
  return text.length > MAX_ITEM_CHARS ? `${text.slice(0, MAX_ITEM_CHARS - 1)}…` : text;
}
