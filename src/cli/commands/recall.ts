import fs from 'node:fs';
import path from 'node:path';
import type { CliIO } from '../../shared/cliIO';
import type { RecallResult } from '../../recall/types';
import type { RecallService } from '../../recall/service';
import { openRecall } from './recallSetup';
import { renderRecallBlock } from '../../prompt/recallBlock';
import { renderExplanation } from '../../recall/explainText';
import { jsonLines } from '../../shared/jsonLines';

/**
 * `minutes recall`: what targeted recall would inject for a query. A stable contract (benchmarks
 * depend on it): it reads only --channel-dir (and --workspace), never writes there, needs no token
 * or config (but for `--semantic api`, which reads the embeddings settings), ignores
 * MINUTES_DATA_DIR, and loads no Discord or chat model SDK code.
 *
 *   --query TEXT [--json]   the block as injected (or one JSON line with --json)
 *   --queries FILE.jsonl    one {"id","query"} per line in; exactly one JSON line per query out:
 *                           {"id","text","items":[{"file","heading","text","score","lexical","semantic"?}]}
 *   --explain               also why (recall/explanation.ts): printed after the block, or as
 *                           "explain" in each JSON line
 *   --semantic off|local|api  words only, or words and meaning (default local: the packaged model).
 *                           Vectors are cached by content in --vector-cache (default
 *                           MINUTES_VECTOR_CACHE, else ~/.cache/minutes/vectors), so a second run
 *                           embeds nothing it embedded before.
 * Bad arguments: one line on stderr, exit code 2. Logs (warnings about unreadable files) go to stderr.
 */
export interface RecallCliOptions {
  channelDir: string;
  workspace?: string;
  query?: string;
  queries?: string;
  budgetChars?: number;
  maxItems?: number;
  now?: string;
  json?: boolean;
  explain?: boolean;
  semantic?: string;
  vectorCache?: string;
}

interface QueryLine {
  id: string;
  query: string;
}

function fail(io: CliIO, msg: string): number {
  io.stderr.write(`minutes recall: ${msg}\n`);
  return 2;
}

/** A date (YYYY-MM-DD, taken as UTC midnight) or any date-time Date.parse accepts. */
export function parseNow(value: string): Date | undefined {
  const v = value.trim();
  const t = /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : Date.parse(v);
  return Number.isNaN(t) ? undefined : new Date(t);
}

/** What the composition may swap: another local sentence model (a damaged one, say). */
export interface RecallCommandDeps {
  localModel?: { module: string; id: string };
}

export async function runRecall(opts: RecallCliOptions, io: CliIO, deps: RecallCommandDeps = {}): Promise<number> {
  const hasQuery = typeof opts.query === 'string';
  const hasQueries = typeof opts.queries === 'string';
  if (hasQuery === hasQueries) return fail(io, 'give exactly one of --query and --queries');
  let now = new Date();
  if (opts.now !== undefined) {
    const d = parseNow(opts.now);
    if (!d) return fail(io, `--now is not a date or date-time: "${opts.now}"`);
    now = d;
  }

  let queries: QueryLine[] = [];
  if (hasQueries) {
    let raw: string;
    try {
      raw = fs.readFileSync(path.resolve(io.cwd, opts.queries!), 'utf8');
    } catch (err) {
      return fail(io, `cannot read --queries file ${opts.queries}: ${(err as Error).message}`);
    }
    for (const l of jsonLines(raw)) {
      if (!l.ok) return fail(io, `${opts.queries} line ${l.line}: not JSON`);
      const o = l.value as Record<string, unknown>;
      if (!o || typeof o !== 'object' || typeof o.query !== 'string' || (typeof o.id !== 'string' && typeof o.id !== 'number')) {
        return fail(io, `${opts.queries} line ${l.line}: expected {"id": "...", "query": "..."}`);
      }
      queries.push({ id: String(o.id), query: o.query });
    }
  } else {
    queries = [{ id: '', query: opts.query! }];
  }

  const opened = await openRecall('recall', opts, io, deps);
  if (typeof opened === 'number') return opened;
  const { recall, channelDir, workspaceDir } = opened;
  try {
    return await answer(recall, { channelDir, workspaceDir, now, queries, hasQueries, opts, io });
  } finally {
    await recall.close();
  }
}

async function answer(
  recall: RecallService,
  a: { channelDir: string; workspaceDir?: string; now: Date; queries: QueryLine[]; hasQueries: boolean; opts: RecallCliOptions; io: CliIO },
): Promise<number> {
  const { opts, io, queries, hasQueries } = a;
  const run = (q: string): Promise<RecallResult> =>
    recall.recall({
      channelDirs: [a.channelDir],
      workspaceDir: a.workspaceDir,
      query: q,
      now: a.now,
      budgetChars: opts.budgetChars,
      maxItems: opts.maxItems,
      ...(opts.explain ? { explain: true } : {}),
    });
  const why = (r: RecallResult) => (opts.explain && r.explain ? { explain: r.explain } : {});

  if (hasQueries) {
    let buf = '';
    for (const q of queries) {
      const r = await run(q.query);
      buf += JSON.stringify({ id: q.id, text: r.text, items: r.items, ...why(r) }) + '\n';
      if (buf.length > 1 << 16) {
        io.stdout.write(buf);
        buf = '';
      }
    }
    if (buf) io.stdout.write(buf);
    return 0;
  }

  const r = await run(queries[0].query);
  if (opts.json) {
    io.stdout.write(JSON.stringify({ text: r.text, items: r.items, ...why(r) }) + '\n');
    return 0;
  }
  if (r.text) io.stdout.write(renderRecallBlock(r) + '\n');
  else io.stderr.write('minutes recall: nothing recalled\n');
  if (opts.explain) {
    // Recall itself failed (an unreadable folder, logged above) when there is no explanation.
    io.stdout.write(
      `${r.text ? '\n' : ''}${r.explain ? renderExplanation(r.explain) : 'No explanation: recall could not read the folders (see the log above).'}\n`,
    );
  }
  return 0;
}
