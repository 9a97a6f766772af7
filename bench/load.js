#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Load benchmark (issue 7 §4): 100 channels × 20 mentions dispatched by the fake gateway as fast as
 * it can, the fake Anthropic server answering after 20 ms, the model limiter unlimited
 * (`limits: { requestsPerMinute: 0, concurrency: 1000, maxRetries: 0 }`).
 *
 * Each variant runs in its own child process (bench/load-run.js: fake Discord + fake model + bot in
 * one process, one performance.now() clock). The bot is the compiled dist (hence `npm run build`),
 * the fakes are TypeScript through test/helpers/register-ts.js.
 *
 *   baseline   a bare discord.js client: same merging rule, fetch() to the same fake model,
 *              channel.send; the throughput ratio is Minutes / baseline
 *   minutes    the real bot (launchBot from dist/bot/start.js) with its trace hook
 *   diagnostics (--diagnose): minutes with the data dir on tmpfs (/dev/shm), minutes without
 *              Bottleneck in the model path, minutes with the store's building blocks timed
 *
 * Usage: npm run bench:load   (= npm run build && node bench/load.js)
 *   options: --runs N (default 1)  --channels N (100)  --messages N (20)  --latency MS (20)
 *            --diagnose  --profile (CPU profile of the measured window → bench/out/load-prof/)
 *            --burst (no yield between dispatch rounds)  --out FILE (bench/out/load.json)
 *            --dist DIR (compiled bot to load; default: a snapshot of ./dist taken at start, so a
 *            concurrent `npm run build` cannot swap the code between variants)
 * Exit status 1 when any message was lost, answered twice or out of order, or a run timed out.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { fork, execFileSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');

function parseArgs(argv) {
  const o = { dist: '', runs: 1, channels: 100, messages: 20, latency: 20, diagnose: false, profile: false, burst: false, out: path.join(root, 'bench/out/load.json') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    if (a === '--runs') o.runs = Number(next());
    else if (a === '--channels') o.channels = Number(next());
    else if (a === '--messages') o.messages = Number(next());
    else if (a === '--latency') o.latency = Number(next());
    else if (a === '--diagnose') o.diagnose = true;
    else if (a === '--profile') o.profile = true;
    else if (a === '--burst') o.burst = true;
    else if (a === '--out') o.out = path.resolve(next());
    else if (a === '--dist') o.dist = path.resolve(next());
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

/** @returns {Promise<any>} */
function runChild(args) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'load-run.js'), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result = null;
    child.on('message', (m) => { result = m; });
    child.on('error', reject);
    child.on('exit', (code) => (result ? resolve(result) : reject(new Error(`load-run.js ${args.join(' ')} exited ${code} without a result`))));
  });
}

const f1 = (x) => (x === undefined || !Number.isFinite(x) ? '–' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const pp = (s) => (s && s.n ? `${f1(s.p50)} / ${f1(s.p95)}` : '–');

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!o.dist) {
    if (!fs.existsSync(path.join(root, 'dist/bot/start.js'))) throw new Error('dist/ is missing: run npm run build first');
    o.dist = path.join(root, 'bench/out/load-dist');
    fs.rmSync(o.dist, { recursive: true, force: true });
    fs.cpSync(path.join(root, 'dist'), o.dist, { recursive: true });
  }
  const git = (...a) => { try { return execFileSync('git', a, { cwd: root, encoding: 'utf8' }).trim(); } catch { return '?'; } };
  const source = { head: git('rev-parse', '--short', 'HEAD'), srcChanges: git('status', '--porcelain', '--', 'src').split('\n').filter(Boolean), dist: path.relative(root, o.dist) };
  const common = ['--dist', o.dist, '--channels', String(o.channels), '--messages', String(o.messages), '--latency', String(o.latency), ...(o.burst ? ['--burst'] : [])];
  const variants = [
    { name: 'baseline', args: ['--mode', 'baseline'] },
    { name: 'minutes', args: ['--mode', 'minutes'] },
  ];
  if (o.diagnose) {
    variants.push(
      { name: 'minutes, data on tmpfs', args: ['--mode', 'minutes', '--data-root', '/dev/shm'] },
      { name: 'minutes, no Bottleneck', args: ['--mode', 'minutes', '--limiter', 'none'] },
      { name: 'minutes, store timed', args: ['--mode', 'minutes', '--breakdown'] },
    );
  }
  const date = new Date().toISOString();
  const uptime = () => { try { return execFileSync('uptime', { encoding: 'utf8' }).trim(); } catch { return `loadavg ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`; } };
  console.log(`load bench ${date}, node ${process.version}, ${os.cpus().length} cpus; ${o.channels} channels × ${o.messages} messages, model latency ${o.latency} ms`);
  console.log(`bot: ${source.dist} (HEAD ${source.head}${source.srcChanges.length ? `; uncommitted in src/: ${source.srcChanges.join(', ')}` : ''})`);
  const results = [];
  for (let run = 1; run <= o.runs; run++) {
    for (const v of variants) {
      const before = uptime();
      const profile = o.profile && v.name === 'minutes' ? ['--profile', path.join(root, `bench/out/load-prof/minutes-run${run}.cpuprofile`)] : [];
      console.log(`run ${run}: ${v.name} … (${before})`);
      const r = await runChild([...v.args, ...common, ...profile]);
      results.push({ run, variant: v.name, uptimeBefore: before, ...r });
      if (profile.length) console.log(require('./load-profile.js').summarise(profile[1], 20, true));
    }
  }

  // ---- tables --------------------------------------------------------------------------------------
  const base = (run) => results.find((r) => r.run === run && r.variant === 'baseline');
  const lines = [];
  lines.push('| run | variant | msgs/s | × baseline | turns (msgs/turn) | REST calls | lost / dup / out of order | peak RSS MB (idle) | CPU cores | event-loop delay p99 ms | load avg |');
  lines.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const b = base(r.run);
    lines.push(`| ${r.run} | ${r.variant} | ${f1(r.messagesPerSecond)} | ${b ? (r.messagesPerSecond / b.messagesPerSecond).toFixed(2) : '–'} | ${r.turns} (${r.mergeRatio.toFixed(1)}) | ${r.restCalls} | ${r.lost} / ${r.duplicated} / ${r.outOfOrder}${r.timedOut ? ' TIMED OUT' : ''} | ${f1(r.rss.peakMB)} (${f1(r.rss.idleMB)}) | ${r.cpu.coresUsed.toFixed(2)} | ${f1(r.eventLoopDelayMs.p99 - 10)} | ${r.loadavgBefore.map((x) => x.toFixed(1)).join(' ')} |`);
  }
  lines.push('');
  lines.push('Milliseconds, p50 / p95 per message:');
  lines.push('');
  lines.push('| run | variant | **overhead, own** | overhead, raw | receipt→model-sent, own | model-done→send-issued | queue wait (channel busy) | REST queue (discord.js) | model-sent→fake model has it | gateway dispatch→receipt |');
  lines.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const m = r.ms;
    lines.push(`| ${r.run} | ${r.variant} | **${pp(m.overheadOwn)}** | ${pp(m.overheadRaw)} | ${pp(m.preOwn)} | ${pp(m.post)} | ${pp(m.queueWait)} | ${pp(m.restWait)} | ${pp(m.modelOut)} | ${pp(m.gateway)} |`);
  }
  const bd = results.filter((r) => r.breakdown && Object.keys(r.breakdown).length);
  if (bd.length) {
    lines.push('');
    lines.push('Store building blocks (variant "store timed"), ms p50 / p95, count:');
    lines.push('');
    lines.push('| run | block | p50 / p95 | max | calls |');
    lines.push('|---|---|---:|---:|---:|');
    for (const r of bd) for (const [k, s] of Object.entries(r.breakdown)) lines.push(`| ${r.run} | ${k} | ${pp(s)} | ${f1(s.max)} | ${s.n} |`);
  }
  const table = lines.join('\n');
  console.log(`\n${table}\n`);
  fs.mkdirSync(path.dirname(o.out), { recursive: true });
  fs.writeFileSync(o.out, JSON.stringify({ date, options: o, source, results }, null, 2));
  console.log(`wrote ${path.relative(root, o.out)}`);
  const bad = results.filter((r) => r.lost || r.duplicated || r.outOfOrder || r.wrongReplyRef || r.timedOut || r.problems.length || r.unhandled.length);
  for (const r of bad) console.log(`FAIL run ${r.run} ${r.variant}: lost ${r.lost}, duplicated ${r.duplicated}, out of order ${r.outOfOrder}, wrong reply ref ${r.wrongReplyRef}, timed out ${r.timedOut}, fake problems ${r.problems.length}, unhandled ${r.unhandled.join(', ')}`);
  process.exitCode = bad.length ? 1 : 0;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
