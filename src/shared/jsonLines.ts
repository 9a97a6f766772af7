/**
 * Reading JSON Lines, the one way every reader in the program does it: blank lines are skipped, and
 * each other line is parsed on its own, so one bad line never hides the rest.
 */

/** One line of a JSONL text: its 1-based number and, when it parsed, its value. */
export type JsonLine = { line: number; ok: true; value: unknown } | { line: number; ok: false };

export function jsonLines(text: string): JsonLine[] {
  const out: JsonLine[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    try {
      out.push({ line: i + 1, ok: true, value: JSON.parse(line) });
    } catch {
      out.push({ line: i + 1, ok: false });
    }
  }
  return out;
}

/**
 * The values of the lines that parse. For files this program appends to: a crash can only tear the
 * last line, and a torn line is skipped rather than failing the whole file.
 */
export function parsedJsonLines(text: string): unknown[] {
  return jsonLines(text).flatMap((l) => (l.ok ? [l.value] : []));
}

/** The JSON text of one record as one line, newline included (JSON.stringify never emits one inside). */
export function jsonLine(record: unknown): string {
  return `${JSON.stringify(record)}\n`;
}
