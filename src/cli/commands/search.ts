import type { CliIO } from '../../shared/cliIO';
import type { RecallItem } from '../../recall/types';
import { openRecall, RecallSetupOptions } from './recallSetup';

/**
 * `minutes search`: a person's explicit search over a channel folder. Unlike `minutes recall`
 * (what would be injected, which may be nothing), it lists every line that shares a word or a
 * meaning with the query, best first, and says "no match" only when nothing does.
 *
 *   --query TEXT [--limit N] [--json]   --json: one line {"items": [{"file","heading","text","score","lexical","semantic"?}]}
 * Reads only --channel-dir (and --workspace); bad arguments: one line on stderr, exit code 2.
 */
export interface SearchCliOptions extends RecallSetupOptions {
  query: string;
  limit?: number;
  json?: boolean;
}

export async function runSearch(opts: SearchCliOptions, io: CliIO): Promise<number> {
  if (!opts.query.trim()) {
    io.stderr.write('minutes search: --query is empty: give the words to look for\n');
    return 2;
  }
  const opened = await openRecall('search', opts, io);
  if (typeof opened === 'number') return opened;
  const { recall, channelDir, workspaceDir } = opened;
  try {
    const items = await recall.search({ channelDirs: [channelDir], workspaceDir, query: opts.query, limit: opts.limit });
    if (opts.json) io.stdout.write(JSON.stringify({ items }) + '\n');
    else if (items.length === 0) io.stderr.write('minutes search: no line shares a word or a meaning with the query\n');
    else io.stdout.write(renderMatches(items) + '\n');
    return 0;
  } finally {
    await recall.close();
  }
}

/** One match a line: where it is, then the line as written. */
export function renderMatches(items: RecallItem[]): string {
  return items
    .map((it, i) => {
      const where = it.heading ? `${it.file} › ${it.heading}` : it.file;
      const scores = `words ${it.lexical.toFixed(2)}${it.semantic !== undefined ? `, meaning ${it.semantic.toFixed(2)}` : ''}`;
      return `${i + 1}. [${where}] (${scores})\n   ${it.text}`;
    })
    .join('\n');
}
