import fs from 'node:fs';
import path from 'node:path';
import type { ShardSet } from '../../src/bot/shards/ownership';
import { launchBot, RunningBot } from '../../src/bot/start/start';
import type { Probes } from '../../src/app/probes';
import type { Settings } from '../../src/config/load';
import { ConfigFileSchema } from '../../src/config/schema';
import { createLogger, type Logger } from '../../src/log/logger';
import { Writable } from 'node:stream';
import { FakeDiscord } from '../fakes/discord/fakeDiscord';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { makeTmpDir } from './tmp';

/** The real bot (real discord.js Client, real Anthropic SDK) against the fake Discord and model. */
/** A guild with one text channel and two members, alice (the basic user) and bo: a discussion's cast. */
export function twoPeople(d: FakeDiscord, channelName: string): { guild: string; channel: string; alice: string; bo: string } {
  const b = d.setupBasic({ channelName });
  return { guild: b.guild.id, channel: b.channel.id, alice: b.user.id, bo: d.addMember(b.guild.id, { username: 'bo' }).id };
}

/** The guild, the channel under test, and its two members (alice, the basic user, and bo). */
export interface Cast {
  h: BotHarness;
  guild: FakeGuild;
  general: FakeChannel;
  alice: FakeUser;
  bo: FakeUser;
}

/** A harness whose guild has the channel under test and two members. */
export function startCast(channelName: string, config?: unknown): Promise<Cast> {
  return startCastWith(channelName, config, () => undefined);
}

/** The same with a third member, `mod`, whose role may manage messages (an admin where no admin roles are set). */
export async function startWithModerator(channelName: string, config?: unknown): Promise<Cast & { mod: FakeUser }> {
  let mod: FakeUser | undefined;
  const cast = await startCastWith(channelName, config, (d, guildId) => {
    const role = d.createRole(guildId, { name: 'mods', permissions: ['ManageMessages'] });
    mod = d.addMember(guildId, { username: 'mo', roles: [role.id] });
  });
  return { ...cast, mod: mod! };
}

/** The same with a quiet `control` channel beside it (what happens there must not happen in the other). */
export async function startWithControlChannel(channelName: string, config?: unknown): Promise<Cast & { control: FakeChannel }> {
  let control: FakeChannel | undefined;
  const cast = await startCastWith(channelName, config, (d, guildId) => {
    control = d.createTextChannel(guildId, { name: 'control' });
  });
  return { ...cast, control: control! };
}

async function startCastWith(channelName: string, config: unknown, more: (d: FakeDiscord, guildId: string) => void): Promise<Cast> {
  let cast: Omit<Cast, 'h'> | undefined;
  const h = await startHarness({
    config,
    setup: (d) => {
      const b = d.setupBasic({ channelName });
      cast = { guild: b.guild, general: b.channel, alice: b.user, bo: d.addMember(b.guild.id, { username: 'bo' }) };
      more(d, b.guild.id);
    },
  });
  return { h, ...cast! };
}

export interface BotHarness {
  discord: FakeDiscord;
  model: FakeModelServer;
  bot: RunningBot;
  dataDir: string;
  settings: Settings;
  /** Every log record the bot wrote, parsed. */
  logs: Record<string, unknown>[];
  /** Starts the bot in this process (when the harness was made with launch: false). */
  launch(): Promise<RunningBot>;
  /** Writes a memory file into a channel's folder before the bot has seen the channel. */
  seed(guildId: string, channelId: string, file: string, text: string): void;
  close(): Promise<void>;
}

/** A JSON logger whose records land, parsed, in `logs`. */
export function capturedLogger(): { logger: Logger; logs: Record<string, unknown>[] } {
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l.trim()) logs.push(JSON.parse(l));
      done();
    },
  });
  return { logger: createLogger({ level: 'info', format: 'json', destination: sink }), logs };
}

/** The real bot in this process, resolved once its client is ready. */
export async function launchReady(settings: Settings, logger: Logger, opts: { shards?: ShardSet; probes?: Probes } = {}): Promise<RunningBot> {
  const b = await launchBot(settings, logger, opts);
  await new Promise<void>((resolve) => (b.client.isReady() ? resolve() : b.client.once('clientReady', () => resolve())));
  return b;
}

export async function startHarness(
  o: {
    config?: unknown;
    discord?: FakeDiscord;
    setup?: (d: FakeDiscord) => void;
    launch?: boolean;
    /** Run only these shards (the test plays one shard process of a sharded bot). */
    shards?: ShardSet;
    /** Recall by meaning (default off here: the model costs a worker thread per bot). */
    semantic?: Settings['semantic'];
    /** Timing marks and fault points, handed to the composition root as a benchmark does. */
    probes?: Probes;
  } = {},
): Promise<BotHarness> {
  const tmp = makeTmpDir();
  const discord = o.discord ?? (await FakeDiscord.start());
  o.setup?.(discord);
  const model = await startFakeModelServer({ minCacheableTokens: 100 });
  const settings: Settings = {
    dataDir: path.join(tmp.dir, 'channels'),
    configFile: null,
    config: ConfigFileSchema.parse(o.config ?? { limits: { maxRetries: 2, requestsPerMinute: 0 } }),
    discord: { token: discord.botToken, apiUrl: discord.apiUrl },
    anthropic: { apiKey: 'test-key', baseURL: model.anthropicBaseURL },
    openai: {},
    log: {},
    // Words only unless a test is about meaning: the sentence model costs a worker thread per runtime.
    semantic: o.semantic ?? { mode: 'off', cacheDir: '' },
  };
  const { logger, logs } = capturedLogger();
  const start = () => launchReady(settings, logger, { shards: o.shards, probes: o.probes });
  // Without launch the caller starts the bot itself (in a child process, say) and later calls launch().
  let bot = (o.launch ?? true) ? await start() : (undefined as unknown as RunningBot);
  return {
    discord,
    model,
    dataDir: settings.dataDir,
    settings,
    logs,
    get bot() {
      return bot;
    },
    set bot(b: RunningBot) {
      bot = b;
    },
    async launch() {
      bot = await start();
      return bot;
    },
    seed(guildId, channelId, file, text) {
      const dir = path.join(settings.dataDir, guildId, channelId);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    },
    async close() {
      await bot?.stop();
      await discord.stop();
      await model.close();
      tmp.cleanup();
    },
  };
}

/**
 * The environment a `minutes start` child process needs to reach the harness's fake Discord and fake
 * model, with the data folder `dataDir` (the harness's by default); nothing of the test runner's own
 * environment but PATH.
 */
export function processEnv(h: BotHarness, o: { dataDir?: string; token?: string } = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'info',
    DISCORD_TOKEN: o.token ?? h.discord.botToken,
    DISCORD_API_URL: h.discord.apiUrl,
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: h.model.anthropicBaseURL,
    MINUTES_DATA_DIR: o.dataDir ?? h.dataDir,
  };
}
