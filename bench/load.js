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
 *   minutes    the real bot (launchBot from dist/bot/start/start.js) with its trace hook
 *   diagnostics (--diagnose): minutes with the data dir on tmpfs (/dev/shm), minutes without
 *              Bottleneck in the model path, minutes with the store's building blocks timed
 *
 * Usage: npm run bench:load   (= npm run build && node bench/load.js)
 *   options: --same-process | --both  --runs N (default 1)  --channels N (100, at most 10,000: message
 *            ids are `load cCCCC mMM`, bench/load-keys.js)
 *            --messages N (20, at most 100)  --latency MS (20)  --json  --strace  --settle-ms MS (1000)
 *            --timeout-ms MS (300000 per variant)
 *            --diagnose  --profile (CPU profile of the measured window → bench/out/load-prof/)
 *            --burst (no yield between dispatch rounds)  --warm (one mention + reply per channel
 *            before the measured window: the burst meets channels already activated)  --out FILE (bench/out/load.json)
 *            --dist DIR (compiled bot to load; default: a snapshot of ./dist taken at start, so a
 *            concurrent `npm run build` cannot swap the code between variants)
 *            --semantic off|local (recall's meaning; default local, as shipped)  --memory N (MEMORY.md
 *            lines per channel, the same in every channel; default 50, 0 = empty channels)
 *
 * Measured per variant (each child runs under --expose-gc; see bench/load-run.js and bench/load-proc.js):
 *   main-thread CPU µs/msg   the bot process's main thread (/proc/<pid>/task/<pid>/schedstat, ns on
 *                            CPU; utime+stime of stat where schedstat is missing) / messages, over the
 *                            window from just before the dispatch until the process is quiet after the
 *                            last answer (≤ 10 ms CPU in 500 ms, no file request in flight), so writes
 *                            deferred past the replies count; the part up to the last answer is
 *                            reported too. "other threads" = the other tasks under /proc/<pid>/task
 *                            summed (started/ended ones noted in load.json), "process" = getrusage over
 *                            the same window
 *   dispatch → model p50/p95 per message: the fake model received the chat request carrying it − the
 *                            fake gateway dispatched it (both on the fakes' clock)
 *   RSS MB idle / peak / after   idle after start-up and a gc; peak = the kernel's VmHWM, reset at the
 *                            window's start; after = once everything is answered, 500 ms + --settle-ms,
 *                            then global.gc() (issue 25 §3: after a burst RSS returns near idle)
 *   --strace                 after each timed pair, one more pair (bare, Minutes) with `strace -f -c -p
 *                            <pid>` attached to the measured process over the same window (from just
 *                            before the dispatch until quiet after the last answer: a bot that writes
 *                            behind its replies does most of its fsyncs after the last one): every
 *                            thread, threads it starts included, the fakes process not.
 *                            syscalls/msg = strace's total calls / messages, also without futex (thread
 *                            hand-offs: their count depends on timing, so on strace's own slowdown);
 *                            fsyncs/turn = fsync + fdatasync + sync_file_range(2) / chat requests the
 *                            fake model received. Counts include the bench's own few calls: IPC with
 *                            the fakes, one getrusage per 100 ms while waiting for quiet. strace stops
 *                            the process at every call: a traced run's timings are never reported,
 *                            its counts only.
 *   --json                   the last line of stdout is one JSON object
 *                            {"bare": {...}, "minutes": {...}, "load_avg": n}, the first arrangement's
 *                            bare client and Minutes (bench/load-summary.js lists the keys); with --runs
 *                            N each figure is the median over the N paired runs (timings over the
 *                            untraced runs, counts over the traced ones; lost / duplicated /
 *                            out_of_order are summed over all runs); load_avg = the 1-minute load
 *                            average before the first run; syscall keys are null without --strace.
 *   data root: a new file    before the runs, what opening a new file in a fresh folder of
 *                            os.tmpdir() (the bot's data root here), writing a line and closing it
 *                            costs, per file (`fileCost` in the JSON file). Minutes makes ~10 files and
 *                            folders per new channel; on the machine of docs/benchmarks.md this cost
 *                            moved between 15 and 620 µs within an hour, and 2,000 channels' figures
 *                            with it.
 * Exit status 1 when any message was lost, answered twice or out of order, or a run timed out.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { fork, execFileSync } = require('node:child_process');
const { jsonLine, straceFigures } = require('./load-summary.js');

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
    json: false,
    strace: false,
    settleMs: 1000,
    timeoutMs: 300_000,
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
    else if (a === '--json') o.json = true;
    else if (a === '--strace') o.strace = true;
    else if (a === '--settle-ms') o.settleMs = Number(next());
    else if (a === '--timeout-ms') o.timeoutMs = Number(next());
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
    // --expose-gc: the child collects before reading idle RSS and RSS after the burst
    const child = fork(path.join(__dirname, 'load-run.js'), args, {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: [...process.execArgv, '--expose-gc'],
    });
    let result = null;
    child.on('message', (m) => {
      result = m;
    });
    child.on('error', reject);
    child.on('exit', (code) => (result ? resolve(result) : reject(new Error(`load-run.js ${args.join(' ')} exited ${code} without a result`))));
  });
}

/**
 * What creating a small file costs in `dir` now (open with create, write, close), per file: the
 * bench's data root, measured before the runs so a slow disk shows in the header, not as the bot.
 */
function newFileCost(dir, files = 300) {
  const tmp = fs.mkdtempSync(path.join(dir, 'minutes-load-probe-'));
  try {
    for (let i = 0; i < files; i++) fs.mkdirSync(path.join(tmp, String(i)));
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < files; i++) fs.appendFileSync(path.join(tmp, String(i), 'log.jsonl'), '{}\n');
    const wallUs = Number(process.hrtime.bigint() - t0) / 1000 / files;
    return { files, wallUs, systemUs: process.cpuUsage(cpu0).system / files };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const f1 = (x) => (x === undefined || !Number.isFinite(x) ? '–' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const pp = (s) => (s && s.n ? `${f1(s.p50)} / ${f1(s.p95)}` : '–');

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!o.dist) {
    if (!fs.existsSync(path.join(root, 'dist/bot/start/start.js'))) throw new Error('dist/ is missing: run npm run build first');
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
    '--settle-ms',
    String(o.settleMs),
    '--timeout-ms',
    String(o.timeoutMs),
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
  // Counts only, after the timed variants: the bare client and Minutes of the first arrangement traced.
  if (o.strace) {
    const at = ['--fakes', o.arrangements[0], '--strace'];
    variants.push(
      { name: 'baseline', fakes: o.arrangements[0], strace: true, args: ['--mode', 'baseline', ...at] },
      { name: 'minutes', fakes: o.arrangements[0], strace: true, args: ['--mode', 'minutes', ...at] },
    );
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
  // Minutes makes ~10 files and folders per new channel: what that costs here moves its figures.
  const fileCost = newFileCost(os.tmpdir());
  console.log(
    `data root ${os.tmpdir()}: a new file costs ${fileCost.wallUs.toFixed(0)} µs (${fileCost.systemUs.toFixed(0)} µs of system CPU; ${fileCost.files} made in fresh folders)`,
  );
  const loadAvg = os.loadavg()[0];
  const results = [];
  for (let run = 1; run <= o.runs; run++) {
    for (const v of variants) {
      const before = uptime();
      const profile =
        o.profile && v.name === 'minutes' && !v.strace ? ['--profile', path.join(root, `bench/out/load-prof/minutes-${v.fakes}-run${run}.cpuprofile`)] : [];
      console.log(`run ${run}: ${v.name}${v.strace ? ' (strace: counts only)' : ''}, ${ARR[v.fakes]} … (${before})`);
      const r = await runChild([...v.args, ...common, ...profile]);
      if (r.clock?.rtt) console.log(`  clock offset fakes − bot ${r.clock.offset.toFixed(3)} ms (IPC round trip ${r.clock.rtt.toFixed(3)} ms)`);
      if (r.baselineModelRetries)
        console.log(`  bare client: ${r.baselineModelRetries} model call(s) sent again after the fake closed an idle keep-alive socket`);
      results.push({ run, variant: v.name, arrangement: v.fakes, uptimeBefore: before, ...r });
      if (profile.length) console.log(require('./load-profile.js').summarise(profile[1], 20, true));
    }
  }

  // ---- tables --------------------------------------------------------------------------------------
  // Traced runs (--strace) give counts only: their timings stay out of every timing table.
  const timed = results.filter((r) => !r.straced);
  const traced = results.filter((r) => r.straced);
  const label = (r) => `${r.variant}${r.straced ? ' (strace)' : ''}`;
  const base = (run, arrangement, straced = false) =>
    results.find((r) => r.run === run && r.arrangement === arrangement && r.variant === 'baseline' && Boolean(r.straced) === straced);
  const usPerMsg = (ms, r) => (ms * 1000) / r.messages;
  const ratio = (x, b) => (b && Number.isFinite(x / b) ? ` (${(x / b).toFixed(2)}×)` : '');
  const lines = [];
  lines.push(
    'RSS, CPU and event-loop delay are the measuring process: the bot alone with the fakes in a child, bot + fakes in the same process; "fakes CPU" is the child\'s.',
  );
  lines.push(
    'Main-thread and other-threads CPU: /proc per task from the dispatch until quiet after the last answer, per message (× the bare client of the same run; "to last answer" stops at the last reply). RSS after: everything answered, a settle, gc.',
  );
  lines.push('');
  lines.push(
    '| run | arrangement | variant | msgs/s | × baseline | turns (msgs/turn) | REST calls | lost / dup / out of order | main-thread CPU µs/msg | main, to last answer | other threads CPU µs/msg | RSS MB idle / peak / after | CPU cores | fakes CPU cores | event-loop delay p99 ms | load avg |',
  );
  lines.push('|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of timed) {
    const b = base(r.run, r.arrangement);
    const mainToLast = usPerMsg(r.threadCpuUntilLastAnswer?.mainMs ?? NaN, r);
    const fakesCpu = r.fakesProcess ? (r.fakesProcess.cpuS / (r.wallMs / 1000)).toFixed(2) : '–';
    const mainUs = usPerMsg(r.threadCpu.mainMs, r);
    const otherUs = usPerMsg(r.threadCpu.otherMs, r);
    lines.push(
      `| ${r.run} | ${ARR[r.arrangement]} | ${label(r)} | ${f1(r.messagesPerSecond)} | ${b ? (r.messagesPerSecond / b.messagesPerSecond).toFixed(2) : '–'} | ${r.turns} (${r.mergeRatio.toFixed(1)}) | ${r.restCalls} | ${r.lost} / ${r.duplicated} / ${r.outOfOrder}${r.timedOut ? ' TIMED OUT' : ''} | ${f1(mainUs)}${b ? ratio(mainUs, usPerMsg(b.threadCpu.mainMs, b)) : ''} | ${f1(mainToLast)} | ${f1(otherUs)}${b ? ratio(otherUs, usPerMsg(b.threadCpu.otherMs, b)) : ''} | ${f1(r.rss.idleMB)} / ${f1(r.rss.peakMB)} / ${f1(r.rss.afterMB)} | ${r.cpu.coresUsed.toFixed(2)} | ${fakesCpu} | ${f1(r.eventLoopDelayMs.p99 - 10)} | ${r.loadavgBefore.map((x) => x.toFixed(1)).join(' ')} |`,
    );
  }
  lines.push('');
  lines.push('Milliseconds, p50 / p95 per message:');
  lines.push('');
  lines.push(
    "Own overhead counts from when the channel was free: **bot** = when the bot's previous send resolved (it cannot take the next batch before, replies stay in order); fake = when the fake Discord received that reply (adds discord.js's handling of the response). Gateway dispatch → model request: the fake model's receipt of the chat request carrying the message − the fake gateway's dispatch of it.",
  );
  lines.push('');
  lines.push(
    '| run | arrangement | variant | **gateway dispatch→model request** | **overhead, own (bot)** | own, message 0 / 1+ (bot) | overhead, own (fake) | overhead, raw | receipt→model-sent, own | model-done→send-issued | queue wait (channel busy) | REST queue (discord.js) | model-sent→fake model has it | gateway dispatch→receipt | own, message 0 / 1+ (fake) |',
  );
  lines.push('|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of timed) {
    const m = r.ms;
    lines.push(
      `| ${r.run} | ${ARR[r.arrangement]} | ${label(r)} | **${pp(m.dispatchToModel)}** | **${pp(m.overheadOwnBot)}** | ${pp(m.ownBotFirstTurn)} · ${pp(m.ownBotLaterTurns)} | ${pp(m.overheadOwn)} | ${pp(m.overheadRaw)} | ${pp(m.preOwn)} | ${pp(m.post)} | ${pp(m.queueWait)} | ${pp(m.restWait)} | ${pp(m.modelOut)} | ${pp(m.gateway)} | ${pp(m.ownFirstTurn)} · ${pp(m.ownLaterTurns)} |`,
    );
  }
  if (traced.length) {
    lines.push('');
    lines.push(
      'System calls (`strace -f -c` attached to the bot process from just before the dispatch until it is quiet after the last answer, every thread). Counts only: strace stops the process at every call, so these runs are slower and their timings are not reported anywhere.',
    );
    lines.push('');
    lines.push('| run | arrangement | variant | syscalls / msg | without futex | fsyncs / turn | turns | calls | most frequent |');
    lines.push('|---|---|---|---:|---:|---:|---:|---:|---|');
    for (const r of traced) {
      const f = straceFigures(r);
      const b = base(r.run, r.arrangement, true);
      const top = Object.entries(r.strace.calls)
        .sort((x, y) => y[1] - x[1])
        .slice(0, 6)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ');
      lines.push(
        `| ${r.run} | ${ARR[r.arrangement]} | ${label(r)} | ${f1(f.syscalls_per_msg)}${b ? ratio(f.syscalls_per_msg, straceFigures(b).syscalls_per_msg) : ''} | ${f1(f.syscalls_no_futex_per_msg)} | ${f1(f.fsyncs_per_turn)} | ${r.turns} | ${r.strace.total} | ${top} |`,
      );
    }
  }
  const first = o.arrangements[0];
  const summary = JSON.parse(jsonLine(results, first, loadAvg));
  lines.push('');
  lines.push(
    `Medians over ${o.runs} paired run${o.runs > 1 ? 's' : ''} (${ARR[first]}; counts from the traced runs${traced.length ? '' : ': none, no --strace'}; lost / duplicated / out of order summed), 1-minute load average before the first run ${loadAvg.toFixed(2)}:`,
  );
  lines.push('');
  lines.push('| figure | bare client | Minutes | Minutes / bare |');
  lines.push('|---|---:|---:|---:|');
  for (const k of Object.keys(summary.bare)) {
    const [x, y] = [summary.bare[k], summary.minutes[k]];
    lines.push(`| ${k} | ${x ?? '–'} | ${y ?? '–'} | ${typeof x === 'number' && typeof y === 'number' && x ? (y / x).toFixed(2) : '–'} |`);
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
  fs.writeFileSync(o.out, JSON.stringify({ date, options: o, source, fileCost, results }, null, 2));
  console.log(`wrote ${path.relative(root, o.out)}`);
  const bad = results.filter((r) => r.lost || r.duplicated || r.outOfOrder || r.wrongReplyRef || r.timedOut || r.problems.length || r.unhandled.length);
  for (const r of bad)
    console.log(
      `FAIL run ${r.run} ${label(r)} (${ARR[r.arrangement]}): lost ${r.lost}, duplicated ${r.duplicated}, out of order ${r.outOfOrder}, wrong reply ref ${r.wrongReplyRef}, timed out ${r.timedOut}, fake problems ${r.problems.length}, unhandled ${r.unhandled.join(', ')}`,
    );
  process.exitCode = bad.length ? 1 : 0;
  // --json: nothing may follow this line on stdout
  if (o.json) console.log(JSON.stringify(summary));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
