/** Discord's hard limit for a message's content. */
export const DISCORD_MESSAGE_LIMIT = 2000;

/**
 * Splits a reply into messages under the limit, at paragraph, then line, then word boundaries.
 * A code fence open at a split is closed at the end of one part and reopened (same info string)
 * at the start of the next, so every part renders on its own.
 */
export function splitReply(text: string, limit = DISCORD_MESSAGE_LIMIT): string[] {
  const body = text.replace(/\s+$/, '');
  if (!body) return [];
  const parts: string[] = [];
  let rest = body;
  let reopen = '';
  while (rest.length) {
    const room = limit - reopen.length - 4; // room for "\n```" when we must close a fence
    let chunk = reopen + rest;
    if (chunk.length <= limit && fenceAfter(chunk) === null) {
      parts.push(chunk);
      break;
    }
    if (chunk.length <= limit) {
      // Fits but ends inside a fence (the model never closed it): close it.
      parts.push(`${chunk}\n\`\`\``);
      break;
    }
    const cut = cutPoint(rest, room);
    chunk = reopen + rest.slice(0, cut).replace(/\s+$/, '');
    rest = rest.slice(cut).replace(/^\n+/, '');
    const open = fenceAfter(chunk);
    if (open !== null) {
      parts.push(`${chunk}\n\`\`\``);
      reopen = `\`\`\`${open}\n`;
    } else {
      parts.push(chunk);
      reopen = '';
    }
  }
  return parts.filter((p) => p.trim().length > 0);
}

function cutPoint(s: string, room: number): number {
  const window = s.slice(0, room);
  for (const sep of ['\n\n', '\n', ' ']) {
    const at = window.lastIndexOf(sep);
    if (at > room * 0.3) return at + (sep === ' ' ? 1 : 0);
  }
  return room;
}

/** The info string of a fence left open at the end of `s`, or null when all fences are closed. */
export function fenceAfter(s: string): string | null {
  let open: string | null = null;
  for (const line of s.split('\n')) {
    const m = /^\s*```(.*)$/.exec(line);
    if (!m) continue;
    open = open === null ? m[1].trim() : null;
  }
  return open;
}
