import type { Client } from 'discord.js';
import type { CliIO } from '../../shared/cliIO';
import { probeWritable, type Settings } from '../../config/load';
import { createRuntime, RuntimeOptions } from '../../app/runtime';
import { inProcess, TurnServices } from '../../app/turnServices';
import { startTurnWorker } from '../../app/turnHost';
import type { Logger } from '../../log/logger';
import { MinutesBot } from '../intake/bot';
import { createDiscordClient } from '../discord/client';
import type { ShardSet } from '../shards/ownership';
import { DiscordSecretary } from '../secretary/discordSecretary';
import { Secretary } from '../../condense/saga/secretary';
import { ThreadOpener } from '../secretary/threadOpener';
import { DecisionNoticer } from '../secretary/decisionNoticer';
import { PackSlash } from '../commands/packSlash';
import { ActionCommands } from '../../condense/knowledge/actionCommands';
import { KnowledgeCommands } from '../../condense/knowledge/knowledgeCommands';
import { DriftNotes } from '../secretary/driftNotes';
import { DriftChecker } from '../../condense/observers/driftChecker';
import { recallDirs } from '../../memory/layout';
import { BotActivity } from '../intake/activity';
import { IdentifyQueue } from '../shards/identifyQueue';
import { CatchUp } from '../intake/catchUp';

export interface RunningBot {
  client: Client;
  bot: MinutesBot;
  /** The chat runtime as this thread sees it (its turns run in the turn worker unless a test handed in a model or clock). */
  runtime: TurnServices;
  secretary: DiscordSecretary;
  /** Finishes turns in flight and queued writes, then disconnects. */
  stop(): Promise<void>;
}

/**
 * Stops the bot; if that takes longer than `budgetMs` (a hung model holding a turn or a
 * condensation), the model requests in flight are aborted so the stop can finish.
 */
export async function stopWithin(running: RunningBot, budgetMs: number, logger: Logger): Promise<void> {
  const timer = setTimeout(() => {
    logger.warn(
      { budgetMs },
      'still waiting on the model at the end of the shutdown budget; aborting its requests (an interrupted condensation resumes at the next start)',
    );
    running.runtime.abortModelCalls('the shutdown budget ran out');
  }, budgetMs);
  timer.unref();
  try {
    await running.stop();
  } finally {
    clearTimeout(timer);
  }
}

/** How long `npm start` lets replies and writes in flight finish before aborting model requests. */
const SHUTDOWN_BUDGET_MS = 20_000;

export class StartupError extends Error {
  override name = 'StartupError';
}

/** Logs in and serves. Start-up problems become a StartupError with one line saying what to set. */
export async function launchBot(
  settings: Settings,
  logger: Logger,
  opts: RuntimeOptions & {
    /** Tests only: run these shards in this process (production takes them from the sharding manager). */
    shards?: ShardSet;
  } = {},
): Promise<RunningBot> {
  if (!settings.discord) throw new StartupError('DISCORD_TOKEN is not set: put it in .env');
  checkDataRoot(settings.dataDir);
  const runtime = await turnServices(settings, logger, opts);
  // With Redis, every process of the bot (on every host) takes its identify turns from one queue.
  const identify = settings.redisUrl ? new IdentifyQueue({ redisUrl: settings.redisUrl, token: settings.discord.token, logger }) : undefined;
  const client = createDiscordClient({ apiUrl: settings.discord.apiUrl, shards: opts.shards, buildIdentifyThrottler: identify?.buildThrottler });
  // Replies and the Secretary's sweep share one view of the REST path: the sweep waits for quiet.
  const activity = new BotActivity();
  const secretary = discordSecretary(client, runtime, activity);
  const sideTasks = { model: runtime.model, store: runtime.store, logger, clock: runtime.clock, usage: runtime.usage };
  const threads = new ThreadOpener({ client, discord: settings.config.discord, deps: sideTasks });
  const noticer = new DecisionNoticer({ client, offerCondense: settings.config.discord.offerCondense, deps: sideTasks });
  const drift = new DriftNotes({
    client,
    enabled: settings.config.discord.driftNotes,
    logger,
    checker: new DriftChecker({
      deps: sideTasks,
      // By meaning too when recall has it: a search of the conversation's memory, where each decision has its line.
      meaning:
        runtime.recall.semantic === 'off'
          ? undefined
          : (ref, text) => runtime.recall.search({ ...recallDirs(runtime.store.paths(ref), runtime.store.root), query: text, limit: 10 }),
    }),
  });
  const { store, engine, clock } = runtime;
  const bot = new MinutesBot({
    client,
    store,
    engine,
    config: settings.config,
    logger,
    clock,
    commands: runtime.commands,
    appendLog: runtime.appendLog,
    trace: runtime.probes.trace,
    activity,
    secretary,
    threads,
    noticer,
    drift,
    actions: new ActionCommands({ store: runtime.store, logger, clock: runtime.clock }),
    packs: new PackSlash({ store: runtime.store, search: (r) => runtime.recall.search(r), clock: runtime.clock }),
    knowledge: new KnowledgeCommands({ store: runtime.store, logger, clock: runtime.clock }),
  });
  bot.attach();
  const catchUp = new CatchUp({ client, store, bot, appendLog: runtime.appendLog, discord: settings.config.discord, logger, clock });
  // A shard ready again after its first time started a new session: what happened in between is
  // not replayed by Discord (a resumed session's is), so it is read back like a start's.
  const readyOnce = new Set<number>();
  client.on('shardReady', (shardId) => {
    if (!readyOnce.has(shardId)) return void readyOnce.add(shardId);
    const guilds = client.guilds.cache.filter((g) => g.shardId === shardId).map((g) => g.id);
    void catchUp.run(guilds).catch((err) => logger.warn({ err, shard: shardId }, 'could not catch up after reconnecting'));
  });
  secretary.attach();
  threads.attach();
  secretary.start();
  client.once('clientReady', (c) => {
    // The sentence model loads now, off the event loop, and recent conversations are indexed, not
    // when the first message asks for them.
    runtime.warmUp([...c.guilds.cache.keys()]);
    // What was received and never answered before a stop or crash, and what was sent while the bot was away.
    void catchUp.run([...c.guilds.cache.keys()]).catch((err) => logger.warn({ err }, 'could not catch up on messages missed while the bot was away'));
    const { shards, shardCount } = c.options;
    logger.info({ user: c.user.tag, guilds: c.guilds.cache.size, ...(shardCount && shardCount > 1 ? { shards, shardCount } : {}) }, 'logged in to Discord');
  });
  client.on('error', (err) => logger.error({ err }, 'discord client error'));
  try {
    await client.login(settings.discord.token);
  } catch (err) {
    await secretary.stop();
    await threads.stop();
    await noticer.stop();
    await drift.stop();
    // Silent on purpose: start-up already failed; that failure is the one reported.
    await runtime.close().catch(() => undefined);
    await client.destroy();
    await identify?.close();
    throw new StartupError(loginProblem(err));
  }
  return {
    client,
    bot,
    runtime,
    secretary,
    async stop() {
      // The bot first (no new messages or commands; turns and commands in flight finish, including
      // condensations they started), then the Secretary's own events and sweeps.
      await bot.drain();
      await secretary.stop();
      await threads.stop();
      await noticer.stop();
      await drift.stop();
      await runtime.close();
      await client.destroy();
      await identify?.close();
    },
  };
}

/**
 * The turns run in a worker thread (turnHost.ts), so the gateway's event loop does only ingest,
 * the inbox and REST. A model client or clock handed in (tests, benches) cannot cross to a thread:
 * the turns then run in this one.
 */
async function turnServices(settings: Settings, logger: Logger, opts: RuntimeOptions): Promise<TurnServices> {
  if (opts.model || opts.clock) return inProcess(await createRuntime(settings, logger, { scheduleUpkeep: true, ...opts }));
  return startTurnWorker(settings, logger, { upkeep: opts.upkeep, probes: opts.probes });
}

/** The Secretary on Discord, given the parts of the runtime it uses. */
export function discordSecretary(
  client: Client,
  runtime: Pick<TurnServices, 'store' | 'logger' | 'clock' | 'model' | 'settings' | 'probes'>,
  activity?: BotActivity,
): DiscordSecretary {
  const { store, logger, clock, model, settings, probes } = runtime;
  return new DiscordSecretary({
    client,
    // Test fault points reach the pipeline from here only; production passes none.
    secretary: new Secretary({ deps: { model, store, logger: logger.child({ component: 'secretary' }), clock }, fault: probes.fault }),
    store,
    logger,
    clock,
    discord: settings.config.discord,
    staleActionDays: settings.config.actions.staleAfterDays,
    activity,
    ratify: settings.config.secretary.ratify,
  });
}

function loginProblem(err: unknown): string {
  const e = err as { code?: string; message?: string };
  if (e.code === 'TokenInvalid' || /401|invalid token/i.test(e.message ?? '')) {
    return 'Discord rejected DISCORD_TOKEN: copy the token again (Developer Portal → your app → Bot → Reset Token) into .env';
  }
  if (e.code === 'DisallowedIntents' || /disallowed intent|4014/i.test(e.message ?? '')) {
    return 'Discord refused the Message Content intent: enable "Message Content Intent" under Developer Portal → your app → Bot → Privileged Gateway Intents';
  }
  return `could not connect to Discord: ${(e.message ?? String(err)).split('\n')[0]}; check DISCORD_API_URL and the network`;
}

function checkDataRoot(dir: string): void {
  const problem = probeWritable(dir);
  if (problem) throw new StartupError(`the data root ${dir} is not writable (${problem}): set MINUTES_DATA_DIR to a folder this user can write`);
}

/** `npm start`: serve until SIGINT/SIGTERM, then shut down cleanly. */
export async function startBot(o: { settings: Settings; logger: Logger; io: CliIO }): Promise<number> {
  // discord.js's sharding manager marks the processes it starts with SHARDING_MANAGER.
  const shard = Boolean(process.env.SHARDING_MANAGER);
  try {
    return await serve(o, shard);
  } finally {
    // The manager's IPC channel (which discord.js listens on) would keep this process alive after
    // everything else has closed, a failed start included.
    if (shard && process.connected) process.disconnect();
  }
}

async function serve(o: { settings: Settings; logger: Logger; io: CliIO }, shard: boolean): Promise<number> {
  let running: RunningBot;
  try {
    running = await launchBot(o.settings, o.logger);
  } catch (err) {
    if (err instanceof StartupError) {
      o.io.stderr.write(`minutes: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      o.logger.info({ signal }, 'shutting down: finishing replies and writes in flight');
      resolve();
    };
    // A shard may get the signal twice (from the terminal's or the service manager's process
    // group, then from the manager): a repeat must not kill it halfway through its shutdown.
    const listen = shard ? process.on.bind(process) : process.once.bind(process);
    listen('SIGINT', () => stop('SIGINT'));
    listen('SIGTERM', () => stop('SIGTERM'));
    // The manager gone without stopping us (SIGKILL, a crash): a restarted manager would start a
    // second process on this shard's guilds and folders, so this one winds down on its own.
    if (shard) process.once('disconnect', () => stop('the sharding manager exited'));
  });
  await stopWithin(running, SHUTDOWN_BUDGET_MS, o.logger);
  o.logger.info('stopped cleanly');
  return 0;
}
