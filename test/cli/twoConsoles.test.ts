import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { run } from '../../src/cli/main';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { runCli } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';

describe('two console sessions on one channel', () => {
  let fake: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  let env: NodeJS.ProcessEnv;
  beforeEach(async () => {
    tmp = makeTmpDir();
    fake = await startFakeModelServer();
    env = {
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: fake.anthropicBaseURL,
      MINUTES_DATA_DIR: path.join(tmp.dir, 'data'),
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
    };
  });
  afterEach(async () => {
    await fake.close();
    tmp.cleanup();
  });
  const conversation = () => JSON.parse(fs.readFileSync(path.join(tmp.dir, 'data', 'local', 'team', '.minutes', 'conversation.json'), 'utf8'));

  it('the second is refused with one line while the first is open; no turn is lost', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (d) => {
      out += d;
    });
    const first = run(['node', 'minutes', 'chat', '--channel', 'team'], { stdin, stdout, stderr: new PassThrough(), env, cwd: tmp.dir });
    stdin.write('first session, message one\n');
    for (let i = 0; i < 200 && !out.includes('---'); i++) await new Promise((r) => setTimeout(r, 25));
    expect(out).toContain('---');

    const second = await runCli(['chat', '--channel', 'team'], { env, cwd: tmp.dir, input: ['second session, message one'] });
    expect(second.code).toBe(2);
    expect(second.stdout).toBe('');
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(second.stderr).toMatch(/local\/team is open in another console session \(pid \d+/);

    stdin.end('first session, message two\n');
    expect(await first).toBe(0);
    expect(conversation().turns.filter((t: { role: string }) => t.role === 'user')).toHaveLength(2);

    // Once the first has closed, the channel is free again.
    const third = await runCli(['chat', '--channel', 'team'], { env, cwd: tmp.dir, input: ['third session'] });
    expect(third.code).toBe(0);
    expect(conversation().turns.filter((t: { role: string }) => t.role === 'user')).toHaveLength(3);
  });

  it('a session lock left by a killed console (same host, pid gone) is taken over', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const stateDir = path.join(tmp.dir, 'data', 'local', 'team', '.minutes');
    fs.mkdirSync(stateDir, { recursive: true });
    fs.writeFileSync(path.join(stateDir, 'console.lock'), JSON.stringify({ host: os.hostname(), pid: dead }));
    const r = await runCli(['chat', '--channel', 'team'], { env, cwd: tmp.dir, input: ['hello again'] });
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(stateDir, 'console.lock'))).toBe(false);
  });
});
