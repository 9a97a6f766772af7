import { jsonLines } from '../../shared/jsonLines';
import type { TranscriptMessage } from './types';

/**
 * A channel's own cold log (`log.jsonl`, as the bot and console mode write it) as a transcript:
 * people's messages with their later edits applied and deleted ones left out. The bot's replies
 * and error records are not part of a discussion's human side, which is all a condensation reads.
 */
interface LogRecord {
  type?: unknown;
  id?: unknown;
  at?: unknown;
  content?: unknown;
  author?: { id?: unknown; name?: unknown };
}

export function transcriptFromLog(raw: string): TranscriptMessage[] {
  const byId = new Map<string, TranscriptMessage>();
  for (const l of jsonLines(raw)) {
    // A torn last line (a crash mid-append) or a record of another shape is skipped, as every reader of the log does.
    if (!l.ok || !l.value || typeof l.value !== 'object') continue;
    const r = l.value as LogRecord;
    const id = typeof r.id === 'string' || typeof r.id === 'number' ? String(r.id) : undefined;
    if (!id) continue;
    if (r.type === 'message' && typeof r.content === 'string' && typeof r.at === 'string') {
      const at = new Date(r.at);
      if (Number.isNaN(at.getTime())) continue;
      const name = typeof r.author?.name === 'string' ? r.author.name : 'someone';
      const authorId = typeof r.author?.id === 'string' ? r.author.id : name;
      byId.set(id, { id, authorId, authorName: name, at, content: r.content, isBot: false });
    } else if (r.type === 'edit' && typeof r.content === 'string') {
      const m = byId.get(id);
      if (m) byId.set(id, { ...m, content: r.content });
    } else if (r.type === 'delete') {
      byId.delete(id);
    }
  }
  return [...byId.values()];
}
