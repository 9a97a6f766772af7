#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * What a channel's first turn costs the thread that runs it (issue 25: a burst's first turns all
 * queue in the turn worker), against the model call alone, measured in the same process.
 *
 * Each variant runs in a fresh process (what a start leaves to the first call is the point):
 *   cold   the runtime as built, no warm-up
 *   warm   the same after the start's warm-up (src/app/warmUp.ts: the model client's loopback
 *          requests, recall's index of the recent channels) has finished
 * In each, one at a time: the first message in each of --channels new channels (each with the same
 * 50-line MEMORY.md), then a second message in each, then --calls bare calls of the same model
 * adapter (src/llm/anthropic.ts) with a prompt of the same size: the baseline. The fake model is a
 * child process answering at once, so the CPU measured is this process's own. Figures: this
 * thread's CPU (/proc/thread-self/schedstat) and the whole process's (getrusage: file-system
 * threads included) per turn, and the wall time of the very first turn after the start.
 *
 *   npm run build && node bench/first-turn.js [--channels 100] [--calls 200] [--semantic off|local]
 *                                             [--profile DIR (a CPU profile per variant: DIR/cold, DIR/warm)]
 *                                             [--dist DIR (an earlier build, for a before/after)]
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { fork } = require('node:child_process');
const { serveCannedAnswer } = require('./canned-answer.js');
const { arg } = require('./args.js');

const root = path.resolve(__dirname, '..');

const ANSWER = JSON.stringify({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-bench',
  content: [{ type: 'text', text: 'noted, thanks' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 1000, output_tokens: 5 },
});

/** The compiled bot: ./dist, or an earlier build passed with --dist (for a before/after) */
const distDir = path.resolve(arg('--dist', path.join(root, 'dist')));
const dist = (rel) => require(path.join(distDir, rel));

if (process.argv[2] === '--serve') {
  serveCannedAnswer(ANSWER);
} else if (process.argv[2] === '--variant') {
  void variant(process.argv[3]).then(
    (r) => process.send?.(r),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
} else {
  void main();
}

/** ns this thread has run (schedstat's first field); getrusage for the process */
const threadNs = () => Number(fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
const processUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function variant(name) {
  const channels = Number(arg('--channels', 100));
  const calls = Number(arg('--calls', 200));
  const semantic = arg('--semantic', 'off');
  const port = Number(arg('--port', 0));
  const baseURL = `http://127.0.0.1:${port}`;
  const { createRuntime } = dist('app/runtime.js');
  const { warmUpRecall } = dist('app/warmUp.js');
  // an earlier build may have no model-path warm-up: then recall's alone
  const warmUpModelPath = fs.existsSync(path.join(distDir, 'llm', 'warmUp.js')) ? dist('llm/warmUp.js').warmUpModelPath : async () => undefined;
  const { ConfigFileSchema } = dist('config/schema.js');
  const { silentLogger } = dist('log/logger.js');
  const { createAnthropicAdapter } = dist('llm/anthropic.js');
  const { generate } = require('./data/gen-project-channel');

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-first-turn-'));
  const dataDir = path.join(tmp, 'channels');
  const guildId = '100000000000000001';
  generate(path.join(tmp, 'seed'), { facts: 50, seed: 3 });
  const memory = fs.readFileSync(path.join(tmp, 'seed', 'MEMORY.md'));
  const refs = Array.from({ length: channels }, (_, i) => ({ kind: 'discord', guildId, channelId: String(200000000000000000n + BigInt(i)) }));
  for (const r of refs) {
    fs.mkdirSync(path.join(dataDir, guildId, r.channelId), { recursive: true });
    fs.writeFileSync(path.join(dataDir, guildId, r.channelId, 'MEMORY.md'), memory);
  }
  const settings = {
    semantic: { mode: semantic, cacheDir: path.join(root, 'bench', 'out', 'load-vectors') },
    dataDir,
    configFile: null,
    config: ConfigFileSchema.parse({ limits: { requestsPerMinute: 0, concurrency: 0, maxRetries: 0 } }),
    discord: null,
    anthropic: { apiKey: 'bench-key', baseURL },
    openai: {},
    log: {},
  };
  const rt = await createRuntime(settings, silentLogger());
  if (name === 'warm') {
    // what warmUp (src/app/warmUp.ts) starts after a login, awaited
    await Promise.all([warmUpModelPath(rt.model.provider), warmUpRecall({ root: dataDir, recall: rt.recall, guildIds: [guildId] })]);
    await rt.recall.idle();
  }
  const message = (c, m) => ({
    id: `30000000000000${String(c).padStart(4, '0')}${m}`,
    authorName: 'dana',
    content: `what did we decide about the deploy pipeline for service ${c}? (message ${m})`,
    at: new Date(),
  });
  /** @param {(i: number) => Promise<unknown>} one */
  async function timed(n, one) {
    const t0 = threadNs();
    const p0 = processUs();
    for (let i = 0; i < n; i++) await one(i);
    return { threadUs: (threadNs() - t0) / 1000 / n, processUs: (processUs() - p0) / n };
  }
  // the very first turn after the start, alone
  const w0 = performance.now();
  const firstOne = await timed(1, () => rt.engine.respond(refs[0], [message(0, 0)]));
  const firstWallMs = performance.now() - w0;
  // phase boundaries on the monotonic clock in µs (a CPU profile's timestamps, for --profile)
  const at = () => Number(process.hrtime.bigint() / 1000n);
  const phases = { firstTurns: [at(), 0], secondTurns: [0, 0] };
  const firstTurns = await timed(channels - 1, (i) => rt.engine.respond(refs[i + 1], [message(i + 1, 0)]));
  phases.firstTurns[1] = phases.secondTurns[0] = at();
  const secondTurns = await timed(channels, (i) => rt.engine.respond(refs[i], [message(i, 1)]));
  phases.secondTurns[1] = at();
  // the baseline: the model adapter alone, a prompt of a first turn's size
  const adapter = createAnthropicAdapter({ apiKey: 'bench-key', baseURL });
  const req = { purpose: 'chat', system: [{ text: 'x'.repeat(3000), cache: true }], messages: [{ role: 'user', content: 'y'.repeat(300) }] };
  const bareCalls = await timed(calls, () => adapter.send({ req, model: 'claude-bench', maxTokens: 1024, signal: globalThis.AbortSignal.timeout(10_000) }));
  await adapter.close();
  await rt.close();
  fs.rmSync(tmp, { recursive: true, force: true });
  return { name, firstOne, firstWallMs, firstTurns, secondTurns, bareCalls, phases };
}

async function main() {
  const server = fork(__filename, ['--serve']);
  const port = await new Promise((resolve) => server.once('message', resolve));
  const passOn = ['--channels', '--calls', '--semantic', '--dist'].flatMap((n) => (arg(n, null) === null ? [] : [n, arg(n, null)]));
  /** @param {string} name */
  const run = (name) =>
    new Promise((resolve, reject) => {
      const profile = arg('--profile', null);
      const execArgv = profile ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(profile, name)] : [];
      const child = fork(__filename, ['--variant', name, '--port', String(port), ...passOn], { execArgv });
      child.once('message', resolve);
      child.once('exit', (code) => (code ? reject(new Error(`variant ${name} exited with ${code}`)) : undefined));
    });
  const results = [];
  for (const name of ['cold', 'warm']) results.push(await run(name));
  server.kill();
  const f = (x) => x.toFixed(0).padStart(7);
  console.log(`${new Date().toISOString().slice(0, 16)} UTC, Node ${process.version}, semantic ${arg('--semantic', 'off')}`);
  console.log(
    'variant | first turn after start: wall ms · thread µs | first turns µs (thread · process) | second turns µs | bare call µs | first turn / bare call (thread)',
  );
  for (const r of results) {
    console.log(
      `${r.name.padEnd(7)} | ${r.firstWallMs.toFixed(1).padStart(7)} · ${f(r.firstOne.threadUs)} | ${f(r.firstTurns.threadUs)} · ${f(r.firstTurns.processUs)} | ${f(r.secondTurns.threadUs)} · ${f(r.secondTurns.processUs)} | ${f(r.bareCalls.threadUs)} | ${(r.firstTurns.threadUs / r.bareCalls.threadUs).toFixed(2)}`,
    );
  }
  console.log(JSON.stringify(results));
}
