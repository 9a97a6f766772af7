import { readTextOrNull } from '../memory/dataFiles';
import { folderLayout } from '../memory/layout';
import { stripInternalMarkers } from '../shared/markers';
import type { Catalog, Channel } from './catalog';

/**
 * A channel's CONTEXT.md as the bot shows it (`/context`): Minutes' internal markers (the hash line,
 * condensation keys) stripped. A private thread has none of its own; its parent's is not shown under
 * its key (the same rule as the dashboard), only named when the client may see the parent.
 */
export function contextUri(key: string): string {
  return `minutes://${key}/CONTEXT.md`;
}

/** The stripped text, or null when the channel has no CONTEXT.md (a private thread never has). */
export async function readContextFile(c: Channel): Promise<string | null> {
  if (c.kind === 'private thread') return null;
  const text = await readTextOrNull(folderLayout(c.unit.dir).context);
  return text === null ? null : stripInternalMarkers(text).trim() + '\n';
}

/** get_context's answer: the file, or one line saying why there is none and where to look instead. */
export async function readContextText(c: Channel, catalog: Catalog): Promise<string> {
  const text = await readContextFile(c);
  if (text !== null && text.trim()) return text;
  if (c.kind === 'private thread') {
    const parent = c.parentKey ? await catalog.byKey(c.parentKey) : undefined;
    return (
      `${c.key} is a private thread: it has no CONTEXT.md of its own (its decisions stay inside it: use list_decisions and list_action_items with this key)` +
      (parent ? `; its conversations also use its channel's CONTEXT.md: get_context ${parent.key}.` : '.')
    );
  }
  return `${c.key} has no CONTEXT.md yet: it is written after the channel's first condensation.`;
}

/** The CONTEXT.md resources a client may read: one per visible channel that has the file. */
export async function contextResources(catalog: Catalog): Promise<Array<{ uri: string; name: string; title: string; mimeType: string }>> {
  const out = [];
  for (const c of await catalog.list()) {
    if ((await readContextFile(c)) === null) continue;
    out.push({ uri: contextUri(c.key), name: `${c.key}/CONTEXT.md`, title: `CONTEXT.md of ${c.label}`, mimeType: 'text/markdown' });
  }
  return out;
}
