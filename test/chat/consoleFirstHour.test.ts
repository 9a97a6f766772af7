import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { run } from '../../src/cli/main';
import { DEFAULT_MODELS } from '../../src/llm/provider';
import { parsedJsonLines } from '../../src/shared/jsonLines';
import { blocks, runCli } from '../helpers/cli';
import { withTmpAndFakeModel } from '../helpers/tmpAndFakeModel';

/** What a newcomer meets in console mode: recall that works from the first query, a quiet terminal, /help, a log with both sides. */
describe('console mode, first hour', () => {
  const world = withTmpAndFakeModel();
  const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    ANTHROPIC_API_KEY: 'k',
    ANTHROPIC_BASE_URL: world.fake.anthropicBaseURL,
    MINUTES_DATA_DIR: path.join(world.tmp.dir, 'data'),
    MINUTES_VECTOR_CACHE: path.join(world.tmp.dir, 'vectors'),
    ...extra,
  });
  const channelDir = (name: string) => path.join(world.tmp.dir, 'data', 'local', name);

  it('the first /recall in a fresh console finds what the second finds (the real sentence model)', async () => {
    fs.mkdirSync(channelDir('db'), { recursive: true });
    fs.writeFileSync(
      path.join(channelDir('db'), 'MEMORY.md'),
      '# Channel Memory\n\n' +
        '- [m-aaaaa1] The orders service stores its data in MySQL 8 on db-1 [from: al, 2026-11-01]\n' +
        '- [m-aaaaa2] The nightly backup job runs at 02:00 UTC [from: al, 2026-11-01]\n' +
        '- [m-aaaaa3] Priya owns the release notes [from: al, 2026-11-01]\n',
    );
    const q = '/recall at what hour is the database copied every night?';
    const r = await runCli(['chat', '--channel', 'db'], { env: env(), cwd: world.tmp.dir, input: [q, q] });
    expect(r.code).toBe(0);
    const [first, second] = blocks(r.stdout);
    expect(first).toContain('The nightly backup job runs at 02:00 UTC');
    expect(first).toBe(second);
  }, 60_000);

  it('/help lists the commands; an unknown command points to it', async () => {
    const r = await runCli(['chat', '--channel', 'help'], { env: env(), cwd: world.tmp.dir, input: ['/help', '/memroy'] });
    const [help, unknown] = blocks(r.stdout);
    for (const cmd of ['/recall', '/memory', '/memory forget', '/context', '/new', '/status', '/help']) expect(help).toContain(cmd);
    expect(unknown).toMatch(/^error: unknown command \/memroy; \/help lists the commands/);
    expect(world.fake.requests).toHaveLength(0);
  });

  it("log.jsonl keeps both sides of a console discussion, and a failed model call's error", async () => {
    world.fake.setHandler((req) =>
      req.model !== DEFAULT_MODELS.anthropic.chat
        ? '{}'
        : /second/.test(JSON.stringify(req.body))
          ? { error: { status: 400, message: 'bad request' } }
          : 'noted',
    );
    const r = await runCli(['chat', '--channel', 'both'], {
      env: env(),
      cwd: world.tmp.dir,
      input: ['first: we ship on Friday', 'second: and bo writes the notes'],
    });
    expect(blocks(r.stdout)[1]).toMatch(/^error: /);
    const log = parsedJsonLines(fs.readFileSync(path.join(channelDir('both'), 'log.jsonl'), 'utf8')) as Record<string, unknown>[];
    expect(log.map((l) => l.type)).toEqual(['message', 'reply', 'message', 'error']);
    expect(log[0]).toMatchObject({ content: 'first: we ship on Friday', author: { name: expect.any(String) } });
    expect(log[1]).toMatchObject({ content: 'noted', inReplyTo: [log[0].id] });
    expect(log[2]).toMatchObject({ content: 'second: and bo writes the notes' });
    expect(log[3]).toMatchObject({ inReplyTo: [log[2].id], error: expect.stringMatching(/./) });
  });

  async function atTerminal(extraEnv: NodeJS.ProcessEnv): Promise<string> {
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (d) => (err += d));
    stdout.resume();
    stdin.end('hello\n');
    const code = await run(['node', 'minutes', 'chat', '--channel', 'tty'], {
      stdin,
      stdout,
      stderr,
      env: env({ LOG_FORMAT: 'json', ...extraEnv }),
      cwd: world.tmp.dir,
    });
    expect(code).toBe(0);
    return err;
  }

  const levels = (stderr: string) =>
    stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l).level as number);

  it('at a terminal only the banner and warnings reach stderr; LOG_LEVEL still wins', async () => {
    // The side model's answer is not JSON, so end-of-input upkeep warns: warnings still show.
    const quiet = await atTerminal({});
    expect(quiet.split('\n')[0]).toMatch(/^Minutes console: channel local\/tty .*\/help lists the commands; Ctrl-D quits\.$/);
    expect(levels(quiet).filter((l) => l < 40)).toEqual([]);
    const loud = await atTerminal({ LOG_LEVEL: 'info' });
    expect(levels(loud).filter((l) => l === 30).length).toBeGreaterThan(0);
  });
});
