import { PassThrough } from 'node:stream';
import { run } from '../../src/cli/main';
import type { CliIO } from '../../src/shared/cliIO';

/** Runs a command function with captured stdout/stderr and scripted stdin lines. */
export async function withCapturedIO(
  fn: (io: CliIO) => Promise<number>,
  o: { env: NodeJS.ProcessEnv; cwd: string; input?: string[] },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => {
    out += d;
  });
  stderr.on('data', (d) => {
    err += d;
  });
  stdin.end((o.input ?? []).map((l) => `${l}\n`).join(''));
  const code = await fn({ stdout, stderr, stdin, env: { LOG_LEVEL: 'warn', ...o.env }, cwd: o.cwd });
  return { code, stdout: out, stderr: err };
}

/** Runs the real `minutes` command in-process with captured streams and scripted stdin lines. */
export function runCli(
  args: string[],
  o: { env: NodeJS.ProcessEnv; cwd: string; input?: string[] },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return withCapturedIO((io) => run(['node', 'minutes', ...args], io), { ...o, env: { LOG_FORMAT: 'json', ...o.env } });
}

/** Splits console-protocol output into its blocks. */
export function blocks(stdout: string): string[] {
  const parts = stdout.split(/^---\n/m);
  if (parts[parts.length - 1] === '') parts.pop();
  return parts.map((p) => p.replace(/\n$/, ''));
}
