import fs from 'node:fs';
import path from 'node:path';
import { NULL_TECH_LINES } from '../../src/recall/nullTech';
import { NULL_CHAT_LINES } from '../../src/recall/nullChat';

/**
 * The shipped technical null (generic technical messages that concern no team's channel) is data a
 * percentile is taken over: it must be large enough for that percentile to be stable, free of
 * repeats that would weigh one kind twice, and independent of the sets that measure recall.
 */
const norm = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ').trim();

/** The benchmark's chat lines: one a line, `#` starts a comment. */
function benchLines(): string[] {
  const dir = path.join(__dirname, '..', '..', 'bench', 'data', 'abstention');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n'))
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** The off-topic probes quoted in issue 41: what the technical null is measured on, never part of it. */
const ISSUE_41_PROBES = [
  'regex to match an email address',
  'TypeError: cannot read properties of undefined',
  '<script>alert(1)</script>',
  'console.log(x)',
  'how do I reverse a list in python',
];

describe('NULL_TECH_LINES', () => {
  it('holds enough lines for a stable percentile', () => {
    expect(NULL_TECH_LINES.length).toBeGreaterThanOrEqual(350);
  });

  it('has no line twice, whatever the case or spacing', () => {
    const seen = new Map<string, string>();
    const dups: string[] = [];
    for (const line of NULL_TECH_LINES) {
      const k = norm(line);
      if (seen.has(k)) dups.push(line);
      seen.set(k, line);
    }
    expect(dups).toEqual([]);
  });

  it('shares no line with the benchmark chat lines, the everyday-chat null or the issue 41 probes', () => {
    const others = new Set([...benchLines(), ...NULL_CHAT_LINES, ...ISSUE_41_PROBES].map(norm));
    expect(NULL_TECH_LINES.filter((l) => others.has(norm(l)))).toEqual([]);
  });

  it('keeps every line short, non-empty and trimmed', () => {
    expect(NULL_TECH_LINES.filter((l) => l.length === 0 || l.length >= 300 || l !== l.trim())).toEqual([]);
  });
});
