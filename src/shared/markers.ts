/**
 * Minutes writes markers into the files it renders: the hash line of CONTEXT.md
 * (`<!-- minutes:context-hash … -->`), the key of each condensation in HISTORY.md
 * (`<!-- minutes:cond:… -->`) and the ledger key on a Discord post. They are for the code that finds
 * its own work again, never for a reader: everything that shows a memory file to a person
 * (`/context` on Discord and in the console, the dashboard) strips them here.
 */
const MARKER_COMMENT = /<!--\s*minutes:[^\n]*?-->/g;
/** How posts carried the key before it was hidden: a visible `-# minutes:cond:…` line at the end. */
const MARKER_LINE = /^-#\s*minutes:cond:[0-9a-f]+[ \t]*$/;
const VISIBLE_MARK = /^-#\s*(minutes:cond:[0-9a-f]+)[ \t]*\r?$/m;

/**
 * The key on a post now: each hex digit as four bits of zero-width space (0) and zero-width
 * non-joiner (1), between two word joiners. Discord keeps these characters and draws none of them,
 * so the bot finds its post by it and people see nothing; no zero-width joiner, which could fuse emoji.
 */
const EDGE = '\u2060';
const BITS = ['\u200b', '\u200c'];
const HIDDEN_MARK = /\u2060((?:[\u200b\u200c]{4})+)\u2060/;
const HIDDEN_MARKS = new RegExp(HIDDEN_MARK.source, 'g');
const PREFIX = 'minutes:cond:';

/** The hidden mark of a ledger key's prefix (hex digits), to put inside a post's text. */
export function hiddenCondensationMark(hex: string): string {
  let bits = '';
  for (const digit of hex.toLowerCase()) {
    const n = parseInt(digit, 16);
    for (let b = 3; b >= 0; b--) bits += BITS[(n >> b) & 1];
  }
  return `${EDGE}${bits}${EDGE}`;
}

/** The marker (`minutes:cond:<hex>`) a post carries, hidden or as the older visible line; undefined when none. */
export function condensationMarkIn(content: string): string | undefined {
  const hidden = HIDDEN_MARK.exec(content);
  if (hidden) {
    let hex = '';
    const bits = hidden[1];
    for (let i = 0; i < bits.length; i += 4) {
      let n = 0;
      for (let b = 0; b < 4; b++) n = (n << 1) | (bits[i + b] === BITS[1] ? 1 : 0);
      hex += n.toString(16);
    }
    return PREFIX + hex;
  }
  return VISIBLE_MARK.exec(content)?.[1];
}

export function stripInternalMarkers(text: string): string {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const stripped = line.replace(MARKER_COMMENT, '').replace(HIDDEN_MARKS, '');
    const had = stripped !== line;
    const kept = had ? stripped.replace(/[ \t]+$/, '') : line;
    // A line that was only a marker goes whole, so no blank line is left in its place.
    if ((had && !kept.trim()) || MARKER_LINE.test(kept.replace(/\r$/, ''))) continue;
    out.push(kept);
  }
  return out.join('\n');
}
