import fs from 'node:fs/promises';
import { readFrontmatter } from './render';

/** `/condensations`: the channel's condensations, newest first, each with its date, topic and post. */
export async function listCondensations(dir: string): Promise<string> {
  // Silent on purpose: a missing file or folder is the empty case.
  const files = (await fs.readdir(dir).catch(() => [] as string[]))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .reverse();
  if (!files.length) return 'No condensations in this channel yet.';
  const lines: string[] = [];
  for (const f of files) {
    // Silent on purpose: a missing file or folder is the empty case.
    const fm = readFrontmatter(await fs.readFile(`${dir}/${f}`, 'utf8').catch(() => ''));
    const title = (fm?.topic as string | undefined) ?? f.replace(/\.md$/, '');
    const url = fm?.post_url as string | undefined;
    const gone = fm?.superseded_by ? ' (superseded)' : '';
    lines.push(`- ${String(fm?.date ?? f.slice(0, 10))}: ${title}${gone}${url ? ` — ${url}` : ''}`);
  }
  return lines.join('\n');
}
