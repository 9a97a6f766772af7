import fs from 'node:fs';
import path from 'node:path';
import { launchBot, StartupError } from '../../src/bot/start/start';
import type { Settings } from '../../src/config/load';
import { ConfigFileSchema } from '../../src/config/schema';
import { silentLogger } from '../../src/log/logger';
import { FakeDiscord } from '../fakes/discord/fakeDiscord';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { runCli } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';

describe('start-up problems stop the bot with one line saying what to set', () => {
  let discord: FakeDiscord;
  let model: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  const settings = (over: Partial<Settings> = {}): Settings => ({
    dataDir: path.join(tmp.dir, 'channels'),
    configFile: null,
    config: ConfigFileSchema.parse({}),
    discord: { token: discord.botToken, apiUrl: discord.apiUrl },
    log: {},
    // Words only unless a test is about meaning: the sentence model costs a worker thread per runtime.
    semantic: { mode: 'off', cacheDir: '' },
    anthropic: { apiKey: 'k', baseURL: model.anthropicBaseURL },
    openai: {},
    ...over,
  });
  beforeEach(async () => {
    tmp = makeTmpDir();
    discord = await FakeDiscord.start();
    discord.setupBasic();
    model = await startFakeModelServer();
  });
  afterEach(async () => {
    await discord.stop();
    await model.close();
    tmp.cleanup();
  });

  it('an invalid token', async () => {
    const err = await launchBot(settings({ discord: { token: 'MTIz.wrong.token-that-is-long-enough', apiUrl: discord.apiUrl } }), silentLogger()).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(StartupError);
    expect(err.message).toMatch(/Discord rejected DISCORD_TOKEN/);
  });

  it('a missing Message Content intent', async () => {
    discord.setPrivilegedIntents({ messageContent: false });
    const err = await launchBot(settings(), silentLogger()).catch((e) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect(err.message).toMatch(/Message Content Intent/);
  });

  it('an unwritable data root', async () => {
    const file = path.join(tmp.dir, 'not-a-dir');
    fs.writeFileSync(file, '');
    const err = await launchBot(settings({ dataDir: path.join(file, 'channels') }), silentLogger()).catch((e) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect(err.message).toMatch(/data root .* is not writable.*MINUTES_DATA_DIR/);
  });

  it('through `minutes start`: no token, no provider', async () => {
    const noToken = await runCli(['start'], { env: { ANTHROPIC_API_KEY: 'k' }, cwd: tmp.dir });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr.trim()).toMatch(/^minutes: DISCORD_TOKEN is not set/);
    const noProvider = await runCli(['start'], { env: { DISCORD_TOKEN: 'MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs' }, cwd: tmp.dir });
    expect(noProvider.code).toBe(2);
    expect(noProvider.stderr.trim().split('\n')).toHaveLength(1);
    expect(noProvider.stderr).toMatch(/no model provider/);
  });

  it('starts and stops cleanly with good settings', async () => {
    const bot = await launchBot(settings(), silentLogger());
    await new Promise<void>((r) => (bot.client.isReady() ? r() : bot.client.once('clientReady', () => r())));
    await bot.stop();
    expect(bot.client.isReady()).toBe(false);
  });
});
