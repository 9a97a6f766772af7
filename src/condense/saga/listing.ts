import path from 'node:path';
import { listNames, readTextOrNull } from '../../memory/dataFiles';
import { FrontMatterError, frontMatterOrError } from '../../memory/frontMatter';

/** `/condensations`: the channel's condensations, newest first, each with its date, topic and post. */
export async function listCondensations(dir: string): Promise<string> {
  // A missing folder or file is the empty case.
  const files = (await listNames(dir)).filter((f) => f.endsWith('.md')).reverse();
  if (!files.length) return 'No condensations in this channel yet.';
  const lines: string[] = [];
  for (const f of files) {
    const read = frontMatterOrError((await readTextOrNull(path.join(dir, f))) ?? '', `condensations/${f}`);
    if (read instanceof FrontMatterError) {
      lines.push(`- ${read.message}`);
      continue;
    }
    const fm = read.data;
    const title = (fm?.topic as string | undefined) ?? f.replace(/\.md$/, '');
    const url = fm?.post_url as string | undefined;
    const gone = fm?.superseded_by ? ' (superseded)' : '';
    lines.push(`- ${String(fm?.date ?? f.slice(0, 10))}: ${title}${gone}${url ? ` — ${url}` : ''}`);
  }
  return lines.join('\n');
}
