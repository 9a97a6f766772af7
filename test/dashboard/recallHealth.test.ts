import fc from 'fast-check';
import { recallHealth } from '../../src/dashboard/recallHealth';
import { recallHealthSection } from '../../src/dashboard/recallHealthView';
import { parsedJsonLines } from '../../src/shared/jsonLines';

/**
 * Issue 41 §4: a channel's recall health from its log.jsonl alone, records in, figures out, with a
 * fixed clock. Replies logged before they recorded recall are "unknown"; a log line of any shape
 * never throws.
 */
const NOW = new Date('2026-11-28T12:00:00Z');
const ago = (days: number, minutes = 0) => new Date(NOW.getTime() - days * 86_400_000 - minutes * 60_000).toISOString();
const PG = { file: 'MEMORY.md', id: 'm-aa0001' };
const RELEASE = { file: 'MEMORY.md', id: 'm-aa0002' };
const HIST = { file: 'HISTORY.md', text: 'Moved the staging database reset to Sundays.' };

let n = 0;
function turn(at: string, content: string, recall?: unknown): unknown[] {
  const id = String(++n);
  return [
    { type: 'message', id, author: { id: '9', name: 'al' }, at, content, addressed: true },
    { type: 'reply', at, content: 'ok', inReplyTo: [id], model: 'm', ...(recall === undefined ? {} : { recall }) },
  ];
}

test('7- and 30-day figures, the lines injected most often, and the last replies with what each got and why', () => {
  n = 0;
  const records = [
    // 40 days ago: outside both windows, and in no top line.
    ...turn(ago(40), 'old question about postgres', { lines: [HIST] }),
    ...turn(ago(20), 'before replies recorded recall'),
    ...turn(ago(12), 'postgres again?', { lines: [PG, HIST] }),
    ...turn(ago(10), 'regex to match an email address', { silence: 'closer-to-tech' }),
    ...turn(ago(3), 'which postgres version?', { lines: [PG] }),
    ...turn(ago(2), 'when do releases go out?', { lines: [RELEASE, PG] }),
    ...turn(ago(1), 'happy friday', { silence: 'words-below-gate' }),
    ...turn(ago(0, 5), 'anything', {}),
    { type: 'answered', at: ago(0, 4), ids: ['8'], how: 'sent' },
  ];
  const h = recallHealth(records, { now: NOW, cut: false });
  expect(h.windows).toEqual([
    { days: 7, replies: 4, injected: 2, abstained: 2, unknown: 0 },
    { days: 30, replies: 7, injected: 3, abstained: 3, unknown: 1 },
  ]);
  expect(h.top).toEqual([
    { ...PG, count: 3 },
    { ...RELEASE, count: 1 },
    { ...HIST, count: 1 },
  ]);
  expect(h.recent.map((r) => [r.messages[0]!.text, r.outcome, r.silence ?? r.lines.length])).toEqual([
    ['anything', 'abstained', 0],
    ['happy friday', 'abstained', 'words-below-gate'],
    ['when do releases go out?', 'injected', 2],
    ['which postgres version?', 'injected', 1],
    ['regex to match an email address', 'abstained', 'closer-to-tech'],
    ['postgres again?', 'injected', 2],
    ['before replies recorded recall', 'unknown', 0],
    ['old question about postgres', 'injected', 1],
  ]);
  expect(h.cut).toBe(false);
  expect(h.since).toBeUndefined();
});

test('only the last 20 replies; a deleted message is not shown again, an edited one as edited; a cut window says from when', () => {
  n = 0;
  const records: unknown[] = [];
  for (let i = 0; i < 25; i++) records.push(...turn(ago(0, 100 - i), `question ${i}`, { silence: 'no-words' }));
  records.push({ type: 'edit', id: '24', at: ago(0, 1), content: 'question 23, edited' });
  records.push({ type: 'delete', id: '25', at: ago(0, 1) });
  const h = recallHealth(records, { now: NOW, cut: true });
  expect(h.recent).toHaveLength(20);
  expect(h.recent[0]!.messages).toEqual([{ author: 'al', text: '', deleted: true }]);
  expect(h.recent[1]!.messages).toEqual([{ author: 'al', text: 'question 23, edited' }]);
  expect(h.recent[19]!.messages[0]!.text).toBe('question 5');
  expect(h.since).toBe(ago(0, 100));
  // A reply whose message is before the part read.
  const orphan = recallHealth([{ type: 'reply', at: ago(0), inReplyTo: ['x'], recall: { silence: 'no-words' } }], { now: NOW, cut: true });
  expect(orphan.recent[0]!.messages).toEqual([{ author: '', text: '', missing: true }]);
});

test('the section: counts and shares, gates in words with their names, memory lines as MEMORY.md holds them now, all escaped', () => {
  n = 0;
  const records = [
    ...turn(ago(1), '<script>alert(1)</script>', { silence: 'closer-to-tech' }),
    ...turn(ago(2), 'postgres?', { lines: [PG, { file: 'MEMORY.md', id: 'm-gone01' }, { file: 'HISTORY.md', text: '<b>bold</b>' }] }),
    ...turn(ago(3), 'old'),
  ];
  const html = recallHealthSection(recallHealth(records, { now: NOW, cut: true }), {
    entry: (l) => (l.id === PG.id ? 'The orders service stores its data in Postgres 16 & more' : undefined),
    windowBytes: 2 * 1024 * 1024,
  });
  expect(html).toContain('<tr><td>last 7 days</td><td>3</td><td>1 (33%)</td><td>1 (33%)</td><td>1 (33%)</td></tr>');
  expect(html).toContain('closer to a generic technical question than to the channel <span class="muted">(closer-to-tech)</span>');
  expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  expect(html).not.toContain('<script>');
  expect(html).toContain('&lt;b&gt;bold&lt;/b&gt;');
  expect(html).toContain('<span class="muted">m-aa0001</span> The orders service stores its data in Postgres 16 &amp; more');
  expect(html).toContain('m-gone01 (no longer in MEMORY.md)');
  expect(html).toContain('logged before replies recorded recall');
  expect(html).toContain('its last 2 MB');
});

test('log lines of any shape never throw, and every reply is counted once', () => {
  const reply = fc.record({
    type: fc.constant('reply'),
    at: fc.oneof(fc.constant(ago(1)), fc.string(), fc.integer()),
    inReplyTo: fc.oneof(fc.array(fc.string(), { maxLength: 4 }), fc.anything()),
    recall: fc.oneof(
      fc.constant(undefined),
      fc.anything(),
      fc.record({ lines: fc.oneof(fc.anything(), fc.array(fc.record({ file: fc.anything(), id: fc.anything(), text: fc.anything() }))) }, { requiredKeys: [] }),
      fc.record({ silence: fc.oneof(fc.string(), fc.constantFrom('closer-to-chat', 'nothing-fits', 'constructor', '__proto__')) }),
    ),
  });
  const other = fc.record({
    type: fc.constantFrom('message', 'edit', 'delete', 'answered'),
    id: fc.anything(),
    author: fc.anything(),
    content: fc.anything(),
    at: fc.anything(),
  });
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.anything(), reply, other), { maxLength: 30 }),
      fc.array(fc.string(), { maxLength: 5 }),
      fc.boolean(),
      (records, garbage, cut) => {
        const parsed = [...records, ...parsedJsonLines(garbage.join('\n'))];
        const h = recallHealth(parsed, { now: NOW, cut });
        for (const w of h.windows) expect(w.injected + w.abstained + w.unknown).toBe(w.replies);
        const html = recallHealthSection(h, { entry: () => undefined, windowBytes: 1024 });
        expect(html.startsWith('<section id="recall-health">')).toBe(true);
      },
    ),
    { numRuns: 300 },
  );
});
