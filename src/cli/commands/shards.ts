import path from 'node:path';
import { checkFolders, planShards, type DataRootToday, type ShardPlan } from '../../bot/shards/shardPlan';
import { dataRootProblem } from '../../memory/dataRoot';
import { shardLayoutFile } from '../../memory/layout';
import { serverFolders } from '../../memory/serverFolders';
import { describeLayout, formatShardList, readShardLayout, type ShardLayout } from '../../memory/shardLayout';
import { StoreError } from '../../memory/storeErrors';
import type { CliIO } from '../../shared/cliIO';
import { settingsFor } from './common';

/**
 * `minutes shards plan` and `minutes shards check`: read-only looks at data roots for running the
 * bot on several hosts. Exit codes: 0 fine, 1 a check found folders on the wrong host, 2 wrong
 * arguments or a data root that cannot be read.
 */

export interface PlanOptions {
  total: number;
  hosts: number;
  dataDir?: string[];
  json?: boolean;
}

export async function runShardsPlan(opts: PlanOptions, io: CliIO): Promise<number> {
  if (opts.hosts > opts.total) {
    io.stderr.write(`minutes shards plan: cannot split ${opts.total} shards over ${opts.hosts} hosts: each host runs at least one shard\n`);
    return 2;
  }
  const dirs = (opts.dataDir ?? []).map((d) => path.resolve(io.cwd, d));
  for (const dir of dirs) {
    const problem = dataRootProblem(dir);
    if (problem) {
      io.stderr.write(`minutes shards plan: --data-dir: ${problem}\n`);
      return 2;
    }
  }
  const today: DataRootToday[] = [];
  for (const dir of dirs) {
    try {
      today.push({ folders: await serverFolders(dir), layout: await readShardLayout(dir) });
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      io.stderr.write(`minutes shards plan: in the data root ${dir}: ${err.message}\n`);
      return 2;
    }
  }
  const plan = planShards({ total: opts.total, hosts: opts.hosts, today });
  io.stdout.write(opts.json ? `${JSON.stringify(plan)}\n` : planText(plan, dirs));
  return 0;
}

function planText(plan: ShardPlan, dirs: string[]): string {
  const lines = [`${plan.total} shards over ${plan.hosts.length} host${plan.hosts.length === 1 ? '' : 's'}:`];
  for (const h of plan.hosts) {
    const where = dirs[h.host] ? ` (today ${dirs[h.host]})` : dirs.length ? ' (a new host: an empty data root)' : '';
    const servers = dirs.length ? `, ${h.guilds.length} server folder${h.guilds.length === 1 ? '' : 's'}` : '';
    lines.push(`  host ${h.host}${where}: minutes start --shards ${formatShardList(h.shards)} --total-shards ${plan.total}${servers}`);
  }
  if (dirs.length === 0) {
    lines.push("Name today's data roots with --data-dir (host 0's first) to see which server folders each host holds and which move.");
  } else if (plan.moves.length === 0) {
    lines.push('No server folder moves: every one is already on the host that will serve it.');
  } else {
    const bytes = plan.moves.reduce((n, m) => n + m.bytes, 0);
    lines.push(`Server folders to move (${plan.moves.length}, ${size(bytes)}), each to the new host's data root:`);
    for (const m of plan.moves)
      lines.push(`  ${m.guild}  ${size(m.bytes)}  from host ${m.from} (${dirs[m.from]}) to host ${m.to}${dirs[m.to] ? ` (${dirs[m.to]})` : ''}`);
    lines.push(
      'Stop the bot on every host, copy the folders (rsync -a), start each host with its command above and --reshard once, then remove the moved folders from their old host (`minutes shards check` reports leftovers).',
    );
  }
  return `${lines.join('\n')}\n`;
}

export async function runShardsCheck(opts: { dataDir?: string; json?: boolean }, io: CliIO): Promise<number> {
  // The data root every other command uses (MINUTES_DATA_DIR, the config's, else ./channels) unless named.
  const dir = opts.dataDir !== undefined ? path.resolve(io.cwd, opts.dataDir) : settingsFor(io, [])?.dataDir;
  if (dir === undefined) return 2;
  const problem = dataRootProblem(dir);
  if (problem) {
    io.stderr.write(`minutes shards check: ${problem}\n`);
    return 2;
  }
  let layout: ShardLayout | null;
  try {
    layout = await readShardLayout(dir);
  } catch (err) {
    if (!(err instanceof StoreError)) throw err;
    io.stderr.write(`minutes shards check: in the data root ${dir}: ${err.message}\n`);
    return 2;
  }
  if (!layout) {
    io.stdout.write(`${dir} records no shard layout yet (${shardLayoutFile(dir)} is written by \`minutes start\`): nothing to check against\n`);
    return 1;
  }
  const { own, strays } = checkFolders(layout, await serverFolders(dir));
  if (opts.json) {
    io.stdout.write(`${JSON.stringify({ dataDir: dir, total: layout.total, shards: layout.shards, guilds: own.map((f) => f.guild), strays })}\n`);
    return strays.length ? 1 : 0;
  }
  const lines = [
    `${dir} runs ${describeLayout(layout)}: ${own.length} server folder${own.length === 1 ? '' : 's'} of its own (${size(own.reduce((n, f) => n + f.bytes, 0))}).`,
  ];
  for (const s of strays)
    lines.push(
      `server ${s.guild} (${size(s.bytes)}) is on shard ${s.shard} of ${layout.total}, which this data root does not run: move its folder to the host that runs shard ${s.shard}`,
    );
  if (!strays.length)
    lines.push(
      "Every server folder here is one of its shards' (a server whose folder is on another host cannot be seen from here: `minutes shards plan` with every data root compares them).",
    );
  io.stdout.write(`${lines.join('\n')}\n`);
  return strays.length ? 1 : 0;
}

/** 1536 → "1.5 KB". */
export function size(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${n.toFixed(1)} ${units[u]}`;
}
