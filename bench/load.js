#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Load benchmark (issue 7 §4): 100 channels × 20 mentions dispatched by the fake gateway as fast as
 * it can, the fake Anthropic server answering after 20 ms, the model limiter unlimited
 * (`limits: { requestsPerMinute: 0, concurrency: 0, maxRetries: 0 }`, 0 = unlimited).
 *
 * Each variant runs in its own child process (bench/load-run.js). Arrangements:
 *   fakes in a child (default)  the fake Discord + fake model run in a process of their own
 *                               (bench/load-fakes.js, driven over IPC), so the measuring process
 *                               holds only the bot: its event loop, CPU and RSS are the bot's alone
 *   --same-process              the old arrangement: fakes and bot share one process and event loop
 *   --both                      both arrangements in one run, for comparison
 * Cross-process times are performance.timeOrigin + performance.now() in both processes (one machine
 * clock; the measured IPC clock offset is printed). The bot is the compiled dist (hence `npm run
 * build`), the fakes are TypeScript through test/helpers/register-ts.js.
 *
 *   baseline   a bare discord.js client: same merging rule, fetch() to the same fake model,
 *              channel.send; the throughput ratio is Minutes / baseline
 *   minutes    the real bot (launchBot from dist/bot/start.js) with its trace hook
 *   diagnostics (--diagnose): minutes with the data dir on tmpfs (/dev/shm), minutes without
 *              Bottleneck in the model path, minutes with the store's building blocks timed
 *
 * Usage: npm run bench:load   (= npm run build && node bench/load.js)
 *   options: --same-process | --both  --runs N (default 1)  --channels N (100)  --messages N (20)  --latency MS (20)
 *            --diagnose  --profile (CPU profile of the measured window → bench/out/load-prof/)
 *            --burst (no yield between dispatch rounds)  --warm (one mention + reply per channel
 *            before the measured window: the burst meets channels already activated)  --out FILE (bench/out/load.json)
 *            --dist DIR (compiled bot to load; default: a snapshot of ./dist taken at start, so a
 *            concurrent `npm run build` cannot swap the code between variants)
 *            --semantic off|local (recall's meaning; default local, as shipped)  --memory N (MEMORY.md
 *            lines per channel, the same in every channel; default 50, 0 = empty channels)
 * Exit status 1 when any message was lost, answered twice or out of order, or a run timed out.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { fork, execFileSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');

function parseArgs(argv) {
  const o = {
    arrangements: ['child'],
    dist: '',
    runs: 1,
    channels: 100,
    messages: 20,
    latency: 20,
    diagnose: false,
    profile: false,
    burst: false,
    warm: false,
    out: path.join(root, 'bench/out/load.json'),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    if (a === '--same-process') o.arrangements = ['same'];
    else if (a === '--both') o.arrangements = ['child', 'same'];
    else if (a === '--runs') o.runs = Number(next());
    else if (a === '--channels') o.channels = Number(next());
    else if (a === '--messages') o.messages = Number(next());
    else if (a === '--latency') o.latency = Number(next());
    else if (a === '--diagnose') o.diagnose = true;
    else if (a === '--profile') o.profile = true;
    else if (a === '--burst') o.burst = true;
    else if (a === '--warm') o.warm = true;
    else if (a === '--out') o.out = path.resolve(next());
    else if (a === '--dist') o.dist = path.resolve(next());
    else if (a === '--semantic') o.semantic = next();
    else if (a === '--memory') o.memory = next();
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

/** @returns {Promise<any>} */
function runChild(args) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'load-run.js'), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result = null;
    child.on('message', (m) => {
      result = m;
    });
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
  const git = (...a) => {
    try {
      return execFileSync('git', a, { cwd: root, encoding: 'utf8' }).trim();
    } catch {
      return '?';
    }
  };
  const source = {
    head: git('rev-parse', '--short', 'HEAD'),
    srcChanges: git('status', '--porcelain', '--', 'src').split('\n').filter(Boolean),
    dist: path.relative(root, o.dist),
  };
  const common = [
    '--dist',
    o.dist,
    '--channels',
    String(o.channels),
    '--messages',
    String(o.messages),
    '--latency',
    String(o.latency),
    ...(o.burst ? ['--burst'] : []),
    ...(o.warm ? ['--warm'] : []),
    ...(o.semantic ? ['--semantic', o.semantic] : []),
    ...(o.memory !== undefined ? ['--memory', String(o.memory)] : []),
  ];
  const variants = [];
  for (const fakes of o.arrangements) {
    const at = ['--fakes', fakes];
    variants.push({ name: 'baseline', fakes, args: ['--mode', 'baseline', ...at] }, { name: 'minutes', fakes, args: ['--mode', 'minutes', ...at] });
    if (o.diagnose) {
      variants.push(
        { name: 'minutes, data on tmpfs', fakes, args: ['--mode', 'minutes', '--data-root', '/dev/shm', ...at] },
        { name: 'minutes, no Bottleneck', fakes, args: ['--mode', 'minutes', '--limiter', 'none', ...at] },
        { name: 'minutes, store timed', fakes, args: ['--mode', 'minutes', '--breakdown', ...at] },
      );
    }
  }
  const ARR = { child: 'fakes in a child', same: 'same process' };
  const date = new Date().toISOString();
  const uptime = () => {
    try {
      return execFileSync('uptime', { encoding: 'utf8' }).trim();
    } catch {
      return `loadavg ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`;
    }
  };
  console.log(
    `load bench ${date}, node ${process.version}, ${os.cpus().length} cpus; ${o.channels} channels × ${o.messages} messages, model latency ${o.latency} ms${o.warm ? ', channels warmed' : ''}`,
  );
  console.log(`bot: ${source.dist} (HEAD ${source.head}${source.srcChanges.length ? `; uncommitted in src/: ${source.srcChanges.join(', ')}` : ''})`);
  const results = [];
  for (let run = 1; run <= o.runs; run++) {
    for (const v of variants) {
      const before = uptime();
      const profile = o.profile && v.name === 'minutes' ? ['--profile', path.join(root, `bench/out/load-prof/minutes-${v.fakes}-run${run}.cpuprofile`)] : [];
      console.log(`run ${run}: ${v.name}, ${ARR[v.fakes]} … (${before})`);
      const r = await runChild([...v.args, ...common, ...profile]);
      if (r.clock?.rtt) console.log(`  clock offset fakes − bot ${r.clock.offset.toFixed(3)} ms (IPC round trip ${r.clock.rtt.toFixed(3)} ms)`);
      results.push({ run, variant: v.name, arrangement: v.fakes, uptimeBefore: before, ...r });
      if (profile.length) console.log(require('./load-profile.js').summarise(profile[1], 20, true));
    }
  }

  // ---- tables --------------------------------------------------------------------------------------
  const base = (run, arrangement) => results.find((r) => r.run === run && r.arrangement === arrangement && r.variant === 'baseline');
  const lines = [];
  lines.push(
    'RSS, CPU and event-loop delay are the measuring process: the bot alone with the fakes in a child, bot + fakes in the same process; "fakes CPU" is the child\'s.',
  );
  lines.push('');
  lines.push(
    '| run | arrangement | variant | msgs/s | × baseline | turns (msgs/turn) | REST calls | lost / dup / out of order | peak RSS MB (idle) | CPU cores | fakes CPU cores | event-loop delay p99 ms | load avg |',
  );
  lines.push('|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const b = base(r.run, r.arrangement);
    const fakesCpu = r.fakesProcess ? (r.fakesProcess.cpuS / (r.wallMs / 1000)).toFixed(2) : '–';
    lines.push(
      `| ${r.run} | ${ARR[r.arrangement]} | ${r.variant} | ${f1(r.messagesPerSecond)} | ${b ? (r.messagesPerSecond / b.messagesPerSecond).toFixed(2) : '–'} | ${r.turns} (${r.mergeRatio.toFixed(1)}) | ${r.restCalls} | ${r.lost} / ${r.duplicated} / ${r.outOfOrder}${r.timedOut ? ' TIMED OUT' : ''} | ${f1(r.rss.peakMB)} (${f1(r.rss.idleMB)}) | ${r.cpu.coresUsed.toFixed(2)} | ${fakesCpu} | ${f1(r.eventLoopDelayMs.p99 - 10)} | ${r.loadavgBefore.map((x) => x.toFixed(1)).join(' ')} |`,
    );
  }
  lines.push('');
  lines.push('Milliseconds, p50 / p95 per message:');
  lines.push('');
  lines.push(
    "Own overhead counts from when the channel was free: **bot** = when the bot's previous send resolved (it cannot take the next batch before, replies stay in order); fake = when the fake Discord received that reply (adds discord.js's handling of the response).",
  );
  lines.push('');
  lines.push(
    '| run | arrangement | variant | **overhead, own (bot)** | own, message 0 / 1+ (bot) | overhead, own (fake) | overhead, raw | receipt→model-sent, own | model-done→send-issued | queue wait (channel busy) | REST queue (discord.js) | model-sent→fake model has it | gateway dispatch→receipt | own, message 0 / 1+ (fake) |',
  );
  lines.push('|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const m = r.ms;
    lines.push(
      `| ${r.run} | ${ARR[r.arrangement]} | ${r.variant} | **${pp(m.overheadOwnBot)}** | ${pp(m.ownBotFirstTurn)} · ${pp(m.ownBotLaterTurns)} | ${pp(m.overheadOwn)} | ${pp(m.overheadRaw)} | ${pp(m.preOwn)} | ${pp(m.post)} | ${pp(m.queueWait)} | ${pp(m.restWait)} | ${pp(m.modelOut)} | ${pp(m.gateway)} | ${pp(m.ownFirstTurn)} · ${pp(m.ownLaterTurns)} |`,
    );
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
  for (const r of bad)
    console.log(
      `FAIL run ${r.run} ${r.variant} (${ARR[r.arrangement]}): lost ${r.lost}, duplicated ${r.duplicated}, out of order ${r.outOfOrder}, wrong reply ref ${r.wrongReplyRef}, timed out ${r.timedOut}, fake problems ${r.problems.length}, unhandled ${r.unhandled.join(', ')}`,
    );
  process.exitCode = bad.length ? 1 : 0;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
