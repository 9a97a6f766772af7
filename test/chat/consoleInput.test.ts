import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { runChat } from '../../src/cli/commands/chat';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { blocks, runCli } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';
import { DEFAULT_MODELS } from '../../src/llm/provider';

let fake: FakeModelServer;
let tmp: ReturnType<typeof makeTmpDir>;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  tmp = makeTmpDir();
  fake = await startFakeModelServer();
  env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL, MINUTES_DATA_DIR: path.join(tmp.dir, 'data') };
});
afterEach(async () => {
  await fake.close();
  tmp.cleanup();
});
const chats = () => fake.requests.filter((r) => r.model === DEFAULT_MODELS.anthropic.chat);

describe('console lines a new user typed', () => {
  it('a line starting with "/" that is not a command is sent as a message; a mistyped command is still an error', async () => {
    fake.enqueue('noted about hosts', 'about the word memory');
    const r = await runCli(['chat', '--channel', 'c'], { env, cwd: tmp.dir, input: ['/etc/hosts is wrong on staging', '/memroy', ' /memory is a word here'] });
    const b = blocks(r.stdout);
    expect(b[0]).toBe('noted about hosts');
    expect(chats()[0].lastUserText).toContain('/etc/hosts is wrong on staging');
    expect(b[1]).toMatch(/^error: unknown command \/memroy.*start the line with a space/);
    expect(b[2]).toBe('about the word memory');
  });

  it('a reply line "---" and a literal "\\---" print differently, each recoverable', async () => {
    fake.enqueue('a\n---\nb\n\\---\nc');
    const r = await runCli(['chat', '--channel', 'c'], { env, cwd: tmp.dir, input: ['show separators'] });
    const b = blocks(r.stdout);
    expect(b[0]).toBe('a\n\\---\nb\n\\\\---\nc');
    // Unescaping one backslash from such lines gives back exactly what the model wrote.
    expect(
      b[0]
        .split('\n')
        .map((l) => (/^\\+---$/.test(l) ? l.slice(1) : l))
        .join('\n'),
    ).toBe('a\n---\nb\n\\---\nc');
  });

  it('/memory of a damaged MEMORY.md prints no control bytes', async () => {
    const dir = path.join(tmp.dir, 'data', 'local', 'c');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), '# Channel Memory\n\n- [m-aaaaaa] The deploy \u001b[2Jkey is in \u0000vault\u0007 [from: a, 2026-11-01]\n');
    const r = await runCli(['chat', '--channel', 'c'], { env, cwd: tmp.dir, input: ['/memory'] });
    const b = blocks(r.stdout);
    expect(b[0]).toContain('[m-aaaaaa] The deploy');
    expect(b[0]).toContain('vault');
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });
});

describe('/memory on Discord too', () => {
  it('shows a damaged MEMORY.md without its control bytes', async () => {
    const { ChannelStore } = await import('../../src/memory/store');
    const { memoryCommand } = await import('../../src/chat/commands');
    const root = path.join(tmp.dir, 'channels');
    const ref = { kind: 'discord' as const, guildId: '100000000000000001', channelId: '200000000000000002' };
    const dir = path.join(root, ref.guildId, ref.channelId);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), '# Channel Memory\n\n- [m-aaaaaa] The deploy \u001b[2Jkey is in \u0000vault\u0007 [from: a, 2026-11-01]\n');
    const store = new ChannelStore({ root });
    const out = await memoryCommand({ store } as unknown as Parameters<typeof memoryCommand>[0], ref);
    expect(out).toContain('[m-aaaaaa] The deploy [2Jkey is in vault');
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });
});

describe('console input that is not a message', () => {
  it('a line of NUL bytes or other control characters is refused like a blank line; nothing goes to the model', async () => {
    fake.enqueue('a real reply');
    const r = await runCli(['chat', '--channel', 'c'], { env, cwd: tmp.dir, input: ['\u0000\u0000\u0000', '', ' \u0007\u001b\u200b ', 'hello'] });
    const b = blocks(r.stdout);
    expect(b.slice(0, 3)).toEqual([
      'error: empty message; type a message, or /help for the commands',
      'error: empty message; type a message, or /help for the commands',
      'error: empty message; type a message, or /help for the commands',
    ]);
    expect(b[3]).toBe('a real reply');
    expect(chats()).toHaveLength(1);
  });

  it('Ctrl-D at a terminal while the model hangs: one line on stderr, no stack, no prompt left after it', async () => {
    fake.setHandler(() => ({ broken: 'hang' }));
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (d) => (out += d));
    stderr.on('data', (d) => (err += d));
    stdin.write('hello?\n');
    const code = runChat(
      { channel: 'tty', shutdownBudgetMs: 300 },
      // Pretty logs, as a person at a terminal gets them.
      { stdin, stdout, stderr, env: { ...env, LOG_FORMAT: 'pretty' }, cwd: tmp.dir },
    );
    for (let i = 0; i < 400 && !chats().length; i++) await new Promise((r) => setTimeout(r, 25));
    expect(chats()).toHaveLength(1);
    stdin.end();
    expect(await code).toBe(1);
    const lines = err.split('\n').filter(Boolean);
    expect(lines[0]).toMatch(/^Minutes console: /);
    expect(lines.slice(1)).toHaveLength(1);
    expect(lines[1]).toMatch(/did not finish|gave up|exiting/);
    // The prompt, the line's one-line error, and nothing after it.
    expect(out).toMatch(/^> error: [^\n]+\n$/);
  }, 20_000);
});
