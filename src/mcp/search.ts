import { parseMemoryLine } from '../memory/entries';
import { ISO_DATE } from '../memory/grammar';
import type { RecallService } from '../recall/service';
import type { RecallItem } from '../recall/types';
import type { Channel } from './catalog';

/**
 * The search tool: recall's explicit search (`minutes search`, the dashboard's search), which never
 * abstains when memory shares a word or a meaning with the query, over one channel or every channel
 * the client may see. Each hit says where it was found and where it came from.
 */
export interface SearchHit {
  /** The channel searched. */
  channel: string;
  label: string;
  /** The channel whose files hold the line (a private thread's search also reads its parent's). */
  found_in: string;
  /** The file, relative to that channel's folder. */
  source: string;
  kind: 'memory' | 'condensation' | 'history' | 'session';
  heading: string;
  text: string;
  /** Ranking score, relative within one channel (1 = its best match). */
  score: number;
  lexical: number;
  semantic?: number;
  provenance: { entry_id?: string; from?: string; date?: string; condensation?: string; post_url?: string };
}

function kindOf(file: string): SearchHit['kind'] {
  if (file.startsWith('condensations/')) return 'condensation';
  if (file.endsWith('HISTORY.md')) return 'history';
  if (file.endsWith('SESSION.md')) return 'session';
  return 'memory';
}

function hitOf(c: Channel, it: RecallItem): SearchHit {
  // Searched with its parent, a private thread's own files are labelled `threads/<id>/…` and the
  // rest are the parent's; searched alone, every file is its own.
  const own = /^threads\/(\d+)\/(.*)$/.exec(it.file);
  const source = own ? own[2]! : it.file;
  const fromParent = c.kind === 'private thread' && c.searchDirs.length > 1 && !own;
  const found_in = fromParent ? c.parentKey! : c.key;
  const kind = kindOf(source);
  const provenance: SearchHit['provenance'] = {};
  if (kind === 'condensation') {
    provenance.condensation = source;
    const d = ISO_DATE.exec(source);
    if (d) provenance.date = d[1];
    if (it.link) provenance.post_url = it.link;
  } else if (kind === 'history') {
    const d = ISO_DATE.exec(it.heading);
    if (d) provenance.date = d[1];
  } else {
    const line = parseMemoryLine(it.text);
    if (line.id) provenance.entry_id = line.id;
    if (line.source) provenance.from = line.source;
    if (line.date) provenance.date = line.date;
  }
  return {
    channel: c.key,
    label: c.label,
    found_in,
    source,
    kind,
    heading: it.heading,
    text: it.text,
    score: it.score,
    lexical: it.lexical,
    ...(it.semantic !== undefined ? { semantic: it.semantic } : {}),
    provenance,
  };
}

export async function searchChannels(recall: RecallService, channels: Channel[], query: string, limit: number): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  for (const c of channels) {
    // Lines without a vector yet are embedded first (once; the cache keeps them), so the first
    // search finds what a later one would.
    await recall.indexAll({ channelDirs: c.searchDirs });
    for (const it of await recall.search({ channelDirs: c.searchDirs, query, limit })) hits.push(hitOf(c, it));
  }
  // A parent's line reached through its private thread is the same line: listed once.
  const seen = new Set<string>();
  return hits
    .sort((a, b) => b.score - a.score || b.lexical - a.lexical)
    .filter((h) => {
      const k = `${h.found_in}\u0000${h.source}\u0000${h.text}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .slice(0, limit);
}
