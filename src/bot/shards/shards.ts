import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fetchRecommendedShardCount, ShardingManager, type Shard } from 'discord.js';
import type { Settings } from '../../config/load';
import type { Logger } from '../../log/logger';
import { claimShardLayout, describeLayout, isWhole, type ShardLayout } from '../../memory/shardLayout';
import type { CliIO } from '../../shared/cliIO';
import { IDENTIFY_TURN_MS } from './identifyQueue';

/** Every shard of the bot on this host (`--shards N|auto`), or these of `total` (`--shards 0-3,8 --total-shards 16`). */
export type ShardRequest = { count: number | 'auto' } | { total: number; ids: number[] };

/** Discord allows one IDENTIFY per 5 s (per max_concurrency bucket); discord.js's own default. */
const SPAWN_DELAY_MS = 5500;
const READY_TIMEOUT_MS = 30_000;
/** A shard's own shutdown waits for replies and writes in flight (model calls time out at 120 s). */
const STOP_TIMEOUT_MS = 150_000;

/**
 * `minutes start --shards …`: one `minutes start` process per shard of this host (discord.js's
 * ShardingManager passes each its shard through SHARDS/SHARD_COUNT), respawned if it dies, until
 * SIGINT/SIGTERM. The data root's recorded layout is checked (and recorded) first. Returns the
 * exit code; a refusal is one line on stderr.
 */
export async function runShards(o: { settings: Settings; logger: Logger; io: CliIO; shards: ShardRequest; reshard?: boolean }): Promise<number> {
  const { settings, logger } = o;
  const token = settings.discord!.token;
  let layout: ShardLayout;
  try {
    if ('total' in o.shards) layout = { total: o.shards.total, shards: o.shards.ids };
    else {
      const count = o.shards.count === 'auto' ? await fetchRecommendedShardCount(token) : o.shards.count;
      layout = { total: count, shards: Array.from({ length: count }, (_, i) => i) };
    }
  } catch (err) {
    // discord.js asks discord.com itself here (DISCORD_API_URL does not apply): say what failed.
    logger.error(
      `could not get Discord's recommended shard count (${(err as Error).message.split('\n')[0]}): check the token and the network, or pass --shards N`,
    );
    return 1;
  }
  const claimed = await claimShardLayout(settings.dataDir, layout, { reshard: o.reshard === true });
  if ('problem' in claimed) {
    o.io.stderr.write(`minutes: ${claimed.problem}\n`);
    return 2;
  }
  const count = layout.total;
  const ids = layout.shards;
  if (count > 1 && !settings.redisUrl) {
    logger.warn({ shards: count }, 'each shard process keeps its own model limits, so the configured limits apply per shard; set REDIS_URL to share them');
  }
  // With Redis the shards take identify turns from one queue shared by every host (identifyQueue.ts),
  // and a shard may wait behind other hosts' shards: no spacing here, and a longer wait for ready.
  const queued = Boolean(settings.redisUrl);
  const readyTimeoutMs = queued ? READY_TIMEOUT_MS + IDENTIFY_TURN_MS * count : READY_TIMEOUT_MS;
  const manager = new ShardingManager(path.resolve(__dirname, '../../../bin/minutes.js'), {
    totalShards: count,
    shardList: ids,
    mode: 'process',
    respawn: true,
    shardArgs: ['start'],
    token,
  });
  let stopping = false;
  // A shard that dies before all are ready (bad token, unwritable data root) would die again at
  // once: no respawns until every shard has been ready once, and such a death fails the start.
  let diedEarly: (why: string) => void = () => undefined;
  const earlyDeath = new Promise<string>((resolve) => {
    diedEarly = resolve;
  });
  manager.on('shardCreate', (shard) => {
    watch(shard, logger, () => stopping);
    shard.on('death', () => {
      if (!stopping && !manager.respawn) diedEarly(`shard ${shard.id} exited during start-up`);
    });
  });
  const wake = new AbortController();
  const signalled = new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  void signalled
    .then((signal) => {
      stopping = true;
      wake.abort();
      logger.info({ signal }, 'stopping the shards: each finishes its replies and writes in flight');
    })
    .catch((err) => logger.error({ err }, 'could not begin stopping the shards'));

  manager.respawn = false;
  let failed: string | null = null;
  void earlyDeath
    .then((why) => {
      failed ??= why;
      wake.abort();
    })
    .catch((err) => logger.error({ err }, 'could not stop starting shards after an early death'));
  for (const [i, id] of ids.entries()) {
    if (stopping || failed) break;
    // Ref'd, so the manager stays up while it waits (a shard's death must not end it with 0);
    // a stop signal or an early death cuts the wait short.
    if (i > 0 && !queued) await sleep(SPAWN_DELAY_MS, undefined, { signal: wake.signal }).catch(() => undefined);
    if (stopping || failed) break;
    try {
      await Promise.race([
        manager.createShard(id).spawn(readyTimeoutMs),
        earlyDeath.then((why) => {
          throw new Error(why);
        }),
      ]);
    } catch (err) {
      if (!stopping) failed ??= `shard ${id} did not start: ${(err as Error).message}`;
      break;
    }
  }
  if (failed) {
    logger.error(failed);
    stopping = true;
  } else if (!stopping) {
    manager.respawn = true;
    logger.info({ shards: count, ...(isWhole(layout) ? {} : { here: ids }), layout: describeLayout(layout) }, 'all shards ready');
    await signalled;
  }
  const codes = await stopAll(manager, logger);
  logger.info({ exitCodes: codes }, 'shards stopped');
  return failed ? 1 : codes.every((c) => c === 0) ? 0 : 1;
}

function watch(shard: Shard, logger: Logger, stopping: () => boolean): void {
  shard.on('spawn', (child) => logger.info({ shard: shard.id, pid: (child as ChildProcess).pid }, 'shard process started'));
  shard.on('ready', () => logger.info({ shard: shard.id }, 'shard ready'));
  shard.on('death', (child) => {
    const at = { shard: shard.id, exitCode: (child as ChildProcess).exitCode };
    if (stopping()) logger.info(at, 'shard process exited');
    else logger.warn(at, shard.manager.respawn ? 'shard process died; respawning it' : 'shard process died');
  });
  shard.on('error', (err: Error) => logger.error({ shard: shard.id, err }, 'shard error'));
}

/** SIGTERM to every shard process (each runs its own graceful shutdown), then waits for all to exit. */
async function stopAll(manager: ShardingManager, logger: Logger): Promise<number[]> {
  manager.respawn = false;
  return Promise.all(
    [...manager.shards.values()].map(async (shard) => {
      const child = shard.process;
      if (!child) return 0;
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode ?? 1;
      const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
      child.kill('SIGTERM');
      // A shard stuck in its drain must not keep the whole bot from stopping.
      const stuck = setTimeout(() => {
        logger.error({ shard: shard.id }, `shard did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM; killing it`);
        child.kill('SIGKILL');
      }, STOP_TIMEOUT_MS);
      const [code] = await exited;
      clearTimeout(stuck);
      return code ?? 1;
    }),
  );
}
