import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { noteSkipped } from './skippedSuites';

/**
 * A private redis-server for one test file: its own free port on 127.0.0.1, no persistence
 * (`--save '' --appendonly no`, so it writes no files), stopped by stop().
 */
export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** SIGSTOP / SIGCONT: a Redis that accepts connections and commands but does not answer, then answers again. */
  pause(): void;
  resume(): void;
}

export function redisServerOnPath(): boolean {
  const probe = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  return probe.error === undefined && probe.status === 0;
}

/**
 * What a Redis test should do here: 'run'; 'fail' in CI without redis-server (CI must test the
 * shared limit for real); 'skip' on a developer machine without it.
 */
export function redisTestMode(env: Record<string, string | undefined> = process.env): 'run' | 'skip' | 'fail' {
  if (redisServerOnPath()) return 'run';
  return env.CI ? 'fail' : 'skip';
}

export const REDIS_MISSING_MESSAGE = 'redis-server is not on PATH: install it (apt-get install -y redis-server) to run the Redis tests.';

/**
 * The start of a Redis suite (`what`: "shared-limit tests"): whether its tests run. In CI without
 * redis-server one failing test says why; off CI the suite is skipped and noted, and the run's last
 * line names every suite skipped and why (test/helpers/skippedSuites.ts). Each suite that runs
 * starts its own private redis-server (startRedisServer).
 */
export function redisSuite(what: string): boolean {
  const mode = redisTestMode();
  if (mode === 'fail') {
    test(`redis-server is available for the ${what}`, () => {
      throw new Error(REDIS_MISSING_MESSAGE);
    });
  } else if (mode === 'skip') {
    noteSkipped(what, 'redis-server is not on PATH (apt-get install -y redis-server runs them; in CI they fail instead)');
  }
  return mode === 'run';
}

/** A port that was free a moment ago (bind :0, read it, release it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** `port`: start again where a stopped one listened (clients reconnect to the same address). */
export async function startRedisServer(opts: { startTimeoutMs?: number; port?: number } = {}): Promise<RedisServer> {
  const port = opts.port ?? (await freePort());
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'notice'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForReady(child, opts.startTimeoutMs ?? 5_000);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () => {
      // A paused server would not act on SIGTERM.
      child.kill('SIGCONT');
      return stopChild(child);
    },
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
  };
}

function waitForReady(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const done = (err?: Error) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      // Keep draining so a chatty server never blocks on a full pipe.
      child.stdout?.resume();
      child.stderr?.resume();
      if (err) {
        child.kill('SIGKILL');
        reject(err);
      } else resolve();
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) done();
    };
    const onExit = (code: number | null) => done(new Error(`redis-server exited (${code}) before it was ready: ${output.slice(-500)}`));
    const timer = setTimeout(() => done(new Error(`redis-server not ready within ${timeoutMs} ms: ${output.slice(-500)}`)), timeoutMs);
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 3_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
