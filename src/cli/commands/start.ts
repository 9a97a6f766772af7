import type { ShardRequest } from '../../bot/shards/shards';
import { claimShardLayout, describeLayout, parseShardList } from '../../memory/shardLayout';
import type { CliIO } from '../../shared/cliIO';
import { loggerFor, settingsFor } from './common';

export interface StartOptions {
  /** A count, 'auto', or (with totalShards) this host's shard ids such as `0-3,8`. */
  shards?: string;
  totalShards?: number;
  reshard?: boolean;
}

/**
 * What `--shards` and `--total-shards` ask for together: nothing (one process, every server), every
 * shard on this host (`--shards N|auto`), or some of them (`--shards 0-3,8 --total-shards 16`).
 */
export function shardRequest(o: StartOptions): { request?: ShardRequest } | { problem: string } {
  const spec = o.shards;
  if (o.totalShards === undefined) {
    if (spec === undefined) return {};
    if (spec === 'auto') return { request: { count: 'auto' } };
    if (/^[1-9]\d*$/.test(spec)) return { request: { count: Number(spec) } };
    return { problem: `--shards ${spec}: expected a positive whole number or 'auto' (a list of shard ids such as 0-3,8 needs --total-shards)` };
  }
  const total = o.totalShards;
  if (spec === undefined) return { problem: `--total-shards ${total} needs --shards with the ids of the shards this host runs (such as 0-3,8)` };
  if (spec === 'auto') return { problem: "--shards auto cannot go with --total-shards: give this host's shard ids (such as 0-3,8), or drop --total-shards" };
  const parsed = parseShardList(spec);
  if ('problem' in parsed) return { problem: `--shards ${spec}: ${parsed.problem}` };
  const beyond = parsed.ids.find((id) => id >= total);
  if (beyond !== undefined) return { problem: `--shards ${spec}: there is no shard ${beyond} in ${total} (ids run from 0 to ${total - 1})` };
  return { request: { total, ids: parsed.ids } };
}

export async function runStart(opts: StartOptions, io: CliIO): Promise<number> {
  const asked = shardRequest(opts);
  if ('problem' in asked) {
    io.stderr.write(`minutes: ${asked.problem}\n`);
    return 2;
  }
  const settings = settingsFor(io, ['discord', 'provider']);
  if (!settings) return 2;
  const logger = loggerFor(settings, io);
  const { request } = asked;
  if (request && 'total' in request && request.ids.length < request.total && !settings.redisUrl) {
    const layout = describeLayout({ total: request.total, shards: request.ids });
    io.stderr.write(
      `minutes: running only ${layout} on this host needs REDIS_URL: the hosts take turns identifying with Discord (one identify per 5 s for the whole bot) and share the model limits through it\n`,
    );
    return 2;
  }
  if (request) {
    const { runShards } = await import('../../bot/shards/shards');
    return runShards({ settings, logger, io, shards: request, reshard: opts.reshard });
  }
  // A shard process started by the sharding manager (which checked the layout for all of them), or
  // one process serving every server: the data root must hold them all.
  if (!io.env.SHARDING_MANAGER) {
    const claimed = await claimShardLayout(settings.dataDir, { total: 1, shards: [0] }, { reshard: opts.reshard === true });
    if ('problem' in claimed) {
      io.stderr.write(`minutes: ${claimed.problem}\n`);
      return 2;
    }
  }
  const { startBot } = await import('../../bot/start/start');
  return startBot({ settings, logger, io });
}
