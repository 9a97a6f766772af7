import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import type { FakeReply } from '../fakes/model/types';
import { makeTmpDir } from '../helpers/tmp';

/**
 * docs/cli.md's promise: console mode gives up 9 s after the end of its input, however the input
 * ends and whatever the model does. Each case runs the real `bin/minutes.js chat` (compiled) as a
 * child process against a fake model server that never answers (or keeps asking to retry later).
 */
const BIN = path.join(__dirname, '..', '..', 'bin', 'minutes.js');
const BUDGET_MS = 9_000;

interface Run {
  fake: FakeModelServer;
  /** Resolves with the exit code and the time from `mark()` (or the spawn) to the exit. */
  exited: Promise<{ code: number | null; signal: string | null; afterMarkMs: number; stdout: string; stderr: string }>;
  child: ReturnType<typeof spawn>;
  mark(): void;
}

describe('console mode ends within its budget after the end of input', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  const fakes: FakeModelServer[] = [];
  beforeAll(() => {
    tmp = makeTmpDir();
    // Words-only recall: six consoles at once on two cores should not each load the sentence model.
    fs.writeFileSync(path.join(tmp.dir, 'config.json'), JSON.stringify({ recall: { semantic: 'off' } }));
  });
  afterAll(async () => {
    await Promise.all(fakes.map((f) => f.close()));
    tmp.cleanup();
  });

  async function start(name: string, reply: FakeReply): Promise<Run> {
    const fake = await startFakeModelServer();
    fakes.push(fake);
    fake.setHandler(() => reply);
    const child = spawn(process.execPath, [BIN, 'chat', '--channel', name], {
      cwd: tmp.dir,
      env: {
        PATH: process.env.PATH,
        HOME: tmp.dir,
        ANTHROPIC_API_KEY: 'k',
        ANTHROPIC_BASE_URL: fake.anthropicBaseURL,
        MINUTES_DATA_DIR: path.join(tmp.dir, 'data'),
        MINUTES_CONFIG: path.join(tmp.dir, 'config.json'),
        LOG_LEVEL: 'warn',
        LOG_FORMAT: 'json',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let t0 = Date.now();
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<Awaited<Run['exited']>>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal, afterMarkMs: Date.now() - t0, stdout, stderr })),
    );
    return { fake, child, exited, mark: () => (t0 = Date.now()) };
  }

  async function untilRequest(fake: FakeModelServer): Promise<void> {
    for (let i = 0; i < 600 && fake.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(fake.requests.length).toBeGreaterThan(0);
  }

  it('EOF on a pipe, EOF while a call is pending, SIGTERM, SIGINT and retries in flight: all exit within 9 s + what a normal run takes', async () => {
    const hang: FakeReply = { broken: 'hang' };
    // A normal run (the model answers at once): start-up, one turn, upkeep and exit. Its time is the
    // margin: the 9 s budget starts at end of input, and the process also has to start and stop.
    const baseline = await start('baseline', 'hello');
    baseline.child.stdin!.end('hi\n');
    // `printf 'hi\n' | minutes chat`: end of input at once, the model never answers.
    const piped = await start('piped', hang);
    piped.child.stdin!.end('hi\n');
    // stdin closed while the model call is pending.
    const pending = await start('pending', hang);
    pending.child.stdin!.write('hi\n');
    // SIGTERM and SIGINT with stdin still open (a terminal, or a pipe nobody closes).
    const term = await start('term', hang);
    term.child.stdin!.write('hi\n');
    const int = await start('int', hang);
    int.child.stdin!.write('hi\n');
    // Retries in flight: the provider answers "overloaded, retry in 30 s" every time.
    const retry = await start('retry', { error: { status: 529 }, retryAfterSeconds: 30 });
    retry.child.stdin!.write('hi\n');

    const base = await baseline.exited;
    expect(base.code).toBe(0);
    const bound = BUDGET_MS + Math.max(2_000, 2 * base.afterMarkMs);

    await untilRequest(pending.fake);
    pending.mark();
    pending.child.stdin!.end();
    await untilRequest(term.fake);
    term.mark();
    term.child.kill('SIGTERM');
    await untilRequest(int.fake);
    int.mark();
    int.child.kill('SIGINT');
    await untilRequest(retry.fake);
    retry.mark();
    retry.child.stdin!.end();

    const results = { piped: await piped.exited, pending: await pending.exited, term: await term.exited, int: await int.exited, retry: await retry.exited };
    for (const [name, r] of Object.entries(results)) {
      // Exited by itself (not killed by the signal's default action), within the promise.
      expect({ name, signal: r.signal, withinBound: r.afterMarkMs < bound }).toEqual({ name, signal: null, withinBound: true });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/exiting anyway/);
    }
    // The line that was read is answered with one honest error block, not dropped.
    expect(results.piped.stdout).toMatch(/^error: .+\n---\n$/);
    expect(results.retry.stdout).toMatch(/^error: .+\n---\n$/);
    // Report the figures (the test's output shows them on failure or with --verbose).
    const figures = Object.fromEntries(Object.entries(results).map(([k, r]) => [k, r.afterMarkMs]));
    process.stdout.write(`console end-of-input exits (ms, bound ${bound}, normal run ${base.afterMarkMs}): ${JSON.stringify(figures)}\n`);
  }, 90_000);
});
