import fs from 'node:fs';
import path from 'node:path';
import { recallQueries } from '../helpers/recallQueries';
import { makeTmpDir } from '../helpers/tmp';

/**
 * Issue 41 §1, with the real sentence model: the product's own young example channel (a team's
 * orders service, 33 lines of memory) once recalled its Postgres decision and release checklist for
 * "regex to match an email address" and a pasted stack trace, because a technical question is closer
 * by meaning to a technical channel than everyday chat is. Against the shipped technical null
 * (src/recall/nullTech.ts), compared on what sets texts apart (src/recall/commonPart.ts), those
 * questions stay silent; the channel's own questions, asked in its words or in others, still recall.
 */
const CHANNEL = path.join(__dirname, '..', '..', 'examples', 'local', 'orders-team');

let tmp: ReturnType<typeof makeTmpDir>;
beforeAll(() => {
  tmp = makeTmpDir();
  // A copy: `minutes recall` never writes to the folder, and the test must not depend on that.
  fs.cpSync(CHANNEL, path.join(tmp.dir, 'orders-team'), { recursive: true });
});
afterAll(() => tmp.cleanup());

const recallEach = async (queries: string[]): Promise<number[]> =>
  (await recallQueries({ channelDir: path.join(tmp.dir, 'orders-team'), workDir: tmp.dir, queries, now: '2026-11-28' })).map((r) => r.items.length);

test('a young technical channel stays silent on technical questions about nothing it knows, and still answers its own', async () => {
  const offTopic = [
    'regex to match an email address',
    'TypeError: cannot read properties of undefined',
    '    at Object.<anonymous> (/home/dev/app/index.js:12:5)    at Module._compile (node:internal/modules/cjs/loader:1256:14)',
    '<script>alert(1)</script>',
    'console.log(x)',
    'how do I reverse a list in python',
    // Silent since the technical comparison leaves out what all texts share (commonPart.ts); before,
    // each recalled the orders channel's lines.
    'panic: runtime error: index out of range [3] with length 3',
    'Back-off restarting failed container, CrashLoopBackOff',
    'how to rename a local git branch',
    'difference between PUT and PATCH in a REST API',
    'SELECT * FROM users WHERE id = 1;',
    // Opened by one rare word the channel uses ("postgres"), withdrawn since meaning finds them closer
    // to a generic technical question than to the channel.
    'how do I list all tables in postgres with psql',
    'how to write an upsert in postgres with ON CONFLICT',
  ];
  const own = [
    'which database do the orders use?',
    'where is the data of the order service kept',
    'when does the nightly backup run',
    // One rare word opens it, and meaning agrees it is about the channel.
    'are we on postgres yet?',
  ];
  const counts = await recallEach([...offTopic, ...own]);
  expect(offTopic.filter((_, i) => counts[i] > 0)).toEqual([]);
  expect(own.filter((_, i) => counts[offTopic.length + i] === 0)).toEqual([]);
}, 90_000);
