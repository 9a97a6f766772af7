/**
 * Minutes writes markers into the files it renders: the hash line of CONTEXT.md
 * (`<!-- minutes:context-hash … -->`), the key of each condensation in HISTORY.md
 * (`<!-- minutes:cond:… -->`) and the marker line under a Discord post (`-# minutes:cond:…`). They
 * are for the code that finds its own work again, never for a reader: everything that shows a
 * memory file to a person (`/context` on Discord and in the console, the dashboard) strips them here.
 */
const MARKER_COMMENT = /<!--\s*minutes:[^\n]*?-->/g;
const MARKER_LINE = /^-#\s*minutes:cond:[0-9a-f]+[ \t]*$/;

export function stripInternalMarkers(text: string): string {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const stripped = line.replace(MARKER_COMMENT, '');
    const had = stripped !== line;
    const kept = had ? stripped.replace(/[ \t]+$/, '') : line;
    // A line that was only a marker goes whole, so no blank line is left in its place.
    if ((had && !kept.trim()) || MARKER_LINE.test(kept.replace(/\r$/, ''))) continue;
    out.push(kept);
  }
  return out.join('\n');
}
