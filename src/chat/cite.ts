import type { RecallItem } from '../recall/types';
import { isWeakToken, tokenize } from '../recall/tokenize';

/**
 * Answers that rest on the decision log say where: when a reply repeats what a recalled
 * condensation line says, the pinned post it came from is linked under the reply, so people can
 * check the source. A link is plain text in angle brackets (no embed, and a URL never pings).
 *
 * "Rests on" is decided in code, not left to the model: the reply shares at least MIN_SHARED
 * specific words with the condensation line, or most of the line's own specific words.
 */
const MIN_SHARED = 3;
const MOST = 0.6;
/** More links than this is a list, not a citation. */
const MAX_LINKS = 2;

export function decisionLogSources(reply: string, items: RecallItem[]): string[] {
  const said = specificWords(reply);
  if (said.size === 0) return [];
  const links: string[] = [];
  for (const it of items) {
    if (!it.link || links.includes(it.link) || reply.includes(it.link)) continue;
    const own = specificWords(it.text);
    let shared = 0;
    for (const w of own) if (said.has(w)) shared++;
    if (shared >= MIN_SHARED || (own.size > 0 && shared / own.size >= MOST && shared >= 2)) links.push(it.link);
    if (links.length >= MAX_LINKS) break;
  }
  return links;
}

/** The line appended to a reply: Discord's small text, one link per source. */
export function sourcesLine(links: string[]): string {
  return links.length ? `-# From the decision log: ${links.map((l) => `<${l}>`).join(' · ')}` : '';
}

function specificWords(text: string): Set<string> {
  // Labels of the condensation format say nothing about the topic.
  return new Set(tokenize(text.replace(/\*\*[^*\n]{1,40}:\*\*/g, ' ')).filter((t) => t.length > 2 && !isWeakToken(t)));
}
