import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { run } from '../../src/cli/main';
import type { CliIO } from '../../src/shared/cliIO';

/**
 * `minutes recall --queries` in this process with the packaged sentence model, one query per line:
 * each query's recalled items, in order. Vectors are cached under `workDir` (the model's first run
 * there embeds the shipped null too).
 */
export async function recallQueries(o: { channelDir: string; workDir: string; queries: string[]; now: string }): Promise<{ id: string; items: unknown[] }[]> {
  const file = path.join(o.workDir, 'queries.jsonl');
  fs.writeFileSync(file, o.queries.map((q, i) => JSON.stringify({ id: String(i), query: q })).join('\n') + '\n');
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (d) => (out += d));
  const io: CliIO = {
    stdout,
    stderr: new PassThrough(),
    stdin: new PassThrough() as unknown as CliIO['stdin'],
    env: { LOG_LEVEL: 'warn', MINUTES_VECTOR_CACHE: path.join(o.workDir, 'vectors') },
    cwd: o.workDir,
  };
  const argv = ['node', 'minutes', 'recall', '--channel-dir', o.channelDir, '--queries', file, '--semantic', 'local', '--now', o.now];
  const code = await run(argv, io);
  if (code !== 0) throw new Error(`minutes recall exited with ${code}`);
  return out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; items: unknown[] });
}
