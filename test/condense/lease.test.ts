import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runCondense } from '../../src/cli/commands/condense';
import { withCapturedIO } from '../helpers/cli';
import { withTmpAndFakeModel } from '../helpers/tmpAndFakeModel';
import { secretaryModel } from './helpers';

const ROOT = path.resolve(__dirname, '../..');

/** `minutes condense …` in a child process (TypeScript sources, no build). */
function condenseChild(args: string[], env: NodeJS.ProcessEnv) {
  const script = `require('./src/cli/main.ts').run(['node', 'minutes', ...${JSON.stringify(args)}]).then((c) => { process.exitCode = c; })`;
  return spawn(process.execPath, ['-r', './test/helpers/register-ts.js', '-e', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: 'ignore' });
}

describe('a condensation lease left by a killed process', () => {
  const world = withTmpAndFakeModel();

  function setup() {
    const dir = path.join(world.tmp.dir, 'chan');
    fs.mkdirSync(dir);
    const transcript = path.join(world.tmp.dir, 't.jsonl');
    fs.writeFileSync(
      transcript,
      [
        { author: 'al', timestamp: '2026-11-20T10:00:00Z', content: 'which database?' },
        { author: 'bea', timestamp: '2026-11-20T10:02:00Z', content: 'decision: we use Postgres as the database for the importer' },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n') + '\n',
    );
    const env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: world.fake.anthropicBaseURL, LOG_LEVEL: 'silent' };
    return { dir, transcript, env };
  }

  it('kill -9 of condense --apply: the next run takes over at once (same host, pid gone)', async () => {
    const { dir, transcript, env } = setup();
    world.fake.setHandler(() => ({ broken: 'hang' }));
    const child = condenseChild(['condense', '--channel-dir', dir, '--transcript', transcript, '--apply'], env);
    const exited = new Promise((r) => child.once('exit', r));
    // The lease is taken before the model is asked: once the request arrives, the run holds it.
    for (let i = 0; i < 300 && world.fake.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(world.fake.requests.length).toBeGreaterThan(0);
    child.kill('SIGKILL');
    await exited;
    const ledger = JSON.parse(fs.readFileSync(path.join(dir, '.minutes', 'ledger.json'), 'utf8'));
    expect(Object.values(ledger.entries)).toEqual([expect.objectContaining({ status: 'running' })]);

    world.fake.setHandler(secretaryModel());
    const r = await withCapturedIO((io) => runCondense({ channelDir: dir, transcript, apply: true }, io), { env, cwd: world.tmp.dir });
    expect(r.stderr).not.toMatch(/another process/);
    expect(r.code).toBe(0);
    expect(fs.readdirSync(path.join(dir, 'condensations'))).toHaveLength(1);
  }, 30_000);

  it('a live holder (or one on another host) is not taken over, and the message says how to clear it', async () => {
    const { dir, transcript, env } = setup();
    world.fake.setHandler(secretaryModel());
    await withCapturedIO((io) => runCondense({ channelDir: dir, transcript, apply: true }, io), { env, cwd: world.tmp.dir });
    // Make the finished entry look like another machine's run still in progress.
    const file = path.join(dir, '.minutes', 'ledger.json');
    const ledger = JSON.parse(fs.readFileSync(file, 'utf8'));
    const entry = Object.values(ledger.entries)[0] as Record<string, unknown>;
    Object.assign(entry, { status: 'running', leaseUntil: new Date(Date.now() + 600_000).toISOString(), leaseHolder: { host: 'some-other-host', pid: 1 } });
    fs.writeFileSync(file, JSON.stringify(ledger));
    const r = await withCapturedIO((io) => runCondense({ channelDir: dir, transcript, apply: true }, io), { env, cwd: world.tmp.dir });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/pid 1 on some-other-host/);
    expect(r.stderr).toMatch(/ledger\.json/);
    expect(r.stderr).toMatch(/leaseUntil/);
  });
});
