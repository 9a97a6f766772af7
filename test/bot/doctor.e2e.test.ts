import fs from 'node:fs';
import path from 'node:path';
import { FakeDiscord } from '../fakes/discord/fakeDiscord';
import type { FakeChannel } from '../fakes/discord/state';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { runCli } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';

describe('minutes doctor', () => {
  let discord: FakeDiscord;
  let model: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  let channel: FakeChannel;
  let env: NodeJS.ProcessEnv;
  beforeEach(async () => {
    tmp = makeTmpDir();
    discord = await FakeDiscord.start();
    channel = discord.setupBasic({ channelName: 'project' }).channel;
    model = await startFakeModelServer({ handler: () => 'OK' });
    fs.writeFileSync(path.join(tmp.dir, 'minutes.config.json'), JSON.stringify({ discord: { channels: [channel.id] } }));
    env = {
      DISCORD_TOKEN: discord.botToken,
      DISCORD_API_URL: discord.apiUrl,
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: model.anthropicBaseURL,
      MINUTES_DATA_DIR: path.join(tmp.dir, 'data'),
    };
  });
  afterEach(async () => {
    await discord.stop();
    await model.close();
    tmp.cleanup();
  });

  it('exits 0 when all is well, with one line per check', async () => {
    const r = await runCli(['doctor'], { env, cwd: tmp.dir });
    expect(r.stdout).toMatch(/^ok {3}config: .*minutes\.config\.json is valid$/m);
    expect(r.stdout).toMatch(/^ok {3}provider: anthropic answered/m);
    expect(r.stdout).toMatch(/^ok {3}token: logged in as/m);
    expect(r.stdout).toMatch(/^ok {3}intents: Message Content intent enabled$/m);
    expect(r.stdout).toMatch(/^ok {3}channel #project: permissions complete$/m);
    expect(r.stdout).toMatch(/All checks passed/);
    expect(r.stdout).toMatch(/^ok {3}data root: .*data does not exist yet; start will create it/m);
    expect(fs.existsSync(path.join(tmp.dir, 'data'))).toBe(false);
    expect(r.code).toBe(0);
    expect(model.requests.length).toBe(2);
  });

  it('says what to check for a data root in the way, an unknown model and an unreachable provider', async () => {
    fs.writeFileSync(path.join(tmp.dir, 'data'), 'a file where the data folder should be');
    model.setHandler(() => ({ error: { status: 404, type: 'not_found_error', message: 'model: claude-nope' } }));
    const r = await runCli(['doctor'], { env, cwd: tmp.dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL data root: .*data is not writable \(.*data is not a folder\): set MINUTES_DATA_DIR/m);
    expect(r.stdout).toMatch(/^FAIL provider: anthropic 404 not_found_error: .*claude-nope: check the model names in the config/m);
    await model.close();
    const down = await runCli(['doctor'], { env: { ...env, MINUTES_DATA_DIR: tmp.dir }, cwd: tmp.dir });
    expect(down.stdout).toMatch(
      /^FAIL provider: Could not connect to Anthropic at http:\/\/127\.0\.0\.1:\d+: connection refused \(nothing is listening there\); check ANTHROPIC_BASE_URL/m,
    );
    expect(down.stdout).toMatch(/^ok {3}data root: .* is writable$/m);
  });

  it('a server that answers {} is not "could not connect": the line says what came back', async () => {
    model.setHandler(() => ({ broken: 'empty-json' }));
    const openai = { ...env, ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: model.openaiBaseURL };
    const r = await runCli(['doctor'], { env: openai, cwd: tmp.dir });
    expect(r.code).toBe(1);
    const line = r.stdout.split('\n').find((l) => l.startsWith('FAIL provider:'));
    expect(line).toBe(
      "FAIL provider: The OpenAI-compatible server sent an answer the bot could not read (a completion without choices); check that OPENAI_BASE_URL points at the provider's API (Anthropic without /v1, OpenAI-compatible with /v1) and that no proxy rewrites it, then try again. It sent: {}",
    );
    expect(r.stdout).not.toMatch(/could not connect/i);
  });

  it('names each problem with its fix and exits 1', async () => {
    discord.setBotPermissions(channel.id, { PinMessages: false, ReadMessageHistory: false });
    model.setHandler(() => ({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } }));
    const r = await runCli(['doctor'], { env, cwd: tmp.dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL channel #project: missing Read Message History, Pin Messages: grant them/m);
    expect(r.stdout).toMatch(/^FAIL provider: anthropic 401 authentication_error: invalid x-api-key: check the API key in \.env$/m);
    expect(r.stdout).toMatch(/2 problem\(s\) found/);
  });

  it('reports a disabled Message Content intent and a bad token', async () => {
    discord.setPrivilegedIntents({ messageContent: false });
    const r = await runCli(['doctor'], { env, cwd: tmp.dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL intents: the Message Content intent is off: enable it/m);
    const bad = await runCli(['doctor'], { env: { ...env, DISCORD_TOKEN: 'MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs' }, cwd: tmp.dir });
    expect(bad.stdout).toMatch(/^FAIL token: Discord rejected DISCORD_TOKEN/m);
  });
});
