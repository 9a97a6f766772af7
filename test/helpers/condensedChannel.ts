import fs from 'node:fs';
import path from 'node:path';
import { secretaryModel } from '../condense/helpers';
import { startFakeModelServer } from '../fakes/model/server';
import { runCli } from './cli';

/**
 * A console channel made only by Minutes itself: `minutes condense --apply` run twice against the
 * scripted Secretary model, a decision and then one that replaces it, each with an action item.
 * Returns the copies of CONTEXT.md and context.json as they were after the first condensation.
 */
export async function condensedChannel(o: { root: string; name?: string; scratch: string }): Promise<{ dir: string; afterFirst: Record<string, string> }> {
  const fake = await startFakeModelServer({ handler: secretaryModel() });
  const dir = path.join(o.root, 'local', o.name ?? 'orders');
  fs.mkdirSync(dir, { recursive: true });
  const env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL, MINUTES_DATA_DIR: o.root };
  const condense = async (name: string, start: string, lines: [string, string][]) => {
    const file = path.join(o.scratch, name);
    const t0 = Date.parse(start);
    fs.writeFileSync(
      file,
      lines.map(([author, content], i) => JSON.stringify({ author, timestamp: new Date(t0 + i * 60_000).toISOString(), content })).join('\n') + '\n',
    );
    const r = await runCli(['condense', '--channel-dir', dir, '--transcript', file, '--apply'], { env, cwd: o.scratch });
    if (r.code !== 0) throw new Error(`condense failed (${r.code}): ${r.stderr}`);
  };
  try {
    await condense('first.jsonl', '2026-11-20T10:00:00Z', [
      ['al', 'where do the orders live?'],
      ['bo', 'decision: we keep the orders database tables in MySQL'],
      ['al', 'todo: al: set up the MySQL replicas by Friday'],
    ]);
    const keep = ['CONTEXT.md', path.join('.minutes', 'context.json')];
    const afterFirst = Object.fromEntries(keep.map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
    await condense('second.jsonl', '2026-11-24T10:00:00Z', [
      ['al', 'MySQL cannot keep up with the order volume'],
      ['bo', 'decision: move the orders database to Postgres'],
      ['al', 'todo: bo: migrate the orders tables off MySQL due 2026-12-01'],
    ]);
    return { dir, afterFirst };
  } finally {
    await fake.close();
  }
}
