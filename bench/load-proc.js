// @ts-check
'use strict';
/**
 * What the load benchmark reads from the kernel about the process it measures (bench/load-run.js),
 * Linux only (/proc). Measured, not sampled: the kernel's own counters at the window's two ends.
 *
 * Per-thread CPU. Every thread of the process is a task under /proc/<pid>/task/<tid>; the main thread
 * (the event loop) is the task whose tid is the pid. A task's CPU time is the first field of its
 * `schedstat` (ns on CPU, exact); where schedstat is missing, utime + stime of its `stat` (clock ticks,
 * 1/CLK_TCK s, coarse). `threadSnapshot` reads every task; `threadCpuDelta` subtracts two snapshots:
 * the main thread's delta, the sum of the other tasks' deltas (a task that started in the window counts
 * from 0), and how many tasks started or ended in the window. A task that ended took its last CPU with
 * it (the kernel folds it into the process totals only): `ended` says how many, and the process total
 * from getrusage (process.cpuUsage, which keeps dead threads' time) is reported beside the sum.
 *
 * Peak RSS. Writing 5 to /proc/self/clear_refs resets the kernel's high-water mark (VmHWM in
 * /proc/self/status) to the current RSS, so VmHWM read at the end is the exact peak of the window,
 * not the max of 50 ms samples.
 *
 * System calls (--strace). `startStrace(pid, file)` attaches `strace -f -c -o file -p pid` to the
 * running process (every thread, and threads it starts later) and resolves once the kernel shows every
 * task traced (TracerPid in /proc/<pid>/task/<tid>/status); `stop()` interrupts strace, which detaches
 * and writes its summary table, and returns the calls per system call name. strace stops the tracee at
 * every call, so a traced run's times mean nothing: its counts only.
 */
const fs = require('node:fs');
const { spawn, execFileSync } = require('node:child_process');

/** fsync-like calls: what makes a write durable (sync_file_range2 is the same call on some architectures). */
const FSYNC_CALLS = ['fsync', 'fdatasync', 'sync_file_range', 'sync_file_range2'];

let ticks = 0;
function ticksPerSecond() {
  if (!ticks) {
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

/**
 * ns on CPU of one task, or null once it has gone.
 * @param {number} pid @param {string} tid
 * @returns {{ ns: number, source: 'schedstat' | 'stat' } | null}
 */
function taskCpu(pid, tid) {
  const dir = `/proc/${pid}/task/${tid}`;
  try {
    const ns = Number(fs.readFileSync(`${dir}/schedstat`, 'utf8').split(' ')[0]);
    if (Number.isFinite(ns)) return { ns, source: 'schedstat' };
  } catch {
    // no schedstat (kernel without CONFIG_SCHED_INFO) or the task is gone: try stat
  }
  try {
    const stat = fs.readFileSync(`${dir}/stat`, 'utf8');
    // fields after "(comm) ": state is field 3, utime field 14, stime field 15
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ns: ((Number(f[11]) + Number(f[12])) / ticksPerSecond()) * 1e9, source: 'stat' };
  } catch {
    return null;
  }
}

/**
 * Every task of the process with its CPU time and name.
 * @param {number} [pid]
 * @returns {{ pid: number, tasks: Map<string, { ns: number, comm: string }>, sources: Set<string> }}
 */
function threadSnapshot(pid = process.pid) {
  const tasks = new Map();
  const sources = new Set();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    const cpu = taskCpu(pid, tid);
    if (!cpu) continue;
    let comm = '?';
    try {
      comm = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    } catch {
      // gone between the two reads: its CPU is still counted under '?'
    }
    tasks.set(tid, { ns: cpu.ns, comm });
    sources.add(cpu.source);
  }
  return { pid, tasks, sources };
}

/**
 * CPU between two snapshots, in ms: main thread, the other tasks (summed, also by thread name),
 * tasks started / ended in between.
 * @param {ReturnType<typeof threadSnapshot>} a @param {ReturnType<typeof threadSnapshot>} b
 */
function threadCpuDelta(a, b) {
  const main = String(a.pid);
  let otherNs = 0;
  let started = 0;
  /** @type {Record<string, number>} */
  const byName = {};
  /** @type {number[]} */
  const perThread = [];
  for (const [tid, t] of b.tasks) {
    if (tid === main) continue;
    const before = a.tasks.get(tid);
    if (!before) started++;
    const d = t.ns - (before?.ns ?? 0);
    otherNs += d;
    byName[t.comm] = (byName[t.comm] ?? 0) + d / 1e6;
    perThread.push(d / 1e6);
  }
  const ended = [...a.tasks.keys()].filter((tid) => tid !== main && !b.tasks.has(tid)).length;
  const mainNs = (b.tasks.get(main)?.ns ?? NaN) - (a.tasks.get(main)?.ns ?? NaN);
  return {
    source: [...new Set([...a.sources, ...b.sources])].join('+'),
    mainMs: mainNs / 1e6,
    otherMs: otherNs / 1e6,
    started,
    ended,
    threadsAtEnd: b.tasks.size,
    otherByNameMs: byName,
    // the busiest other threads (a turn worker shows as one, libuv's file-system threads as up to four)
    otherTopMs: perThread
      .sort((x, y) => y - x)
      .slice(0, 8)
      .map((ms) => Math.round(ms)),
  };
}

/** Resets the kernel's peak-RSS mark of this process to its current RSS; false where not allowed. */
function resetPeakRss() {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** VmHWM of this process in bytes (the peak RSS since start or the last resetPeakRss), or NaN. */
function peakRssBytes() {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * strace -c's summary table → calls per system call and the total.
 * Rows: `% time  seconds  usecs/call  calls  [errors]  syscall`; the errors column may be blank.
 * @param {string} text
 */
function parseStraceSummary(text) {
  /** @type {Record<string, number>} */
  const calls = {};
  let total = NaN;
  for (const line of text.split('\n')) {
    const t = line.trim().split(/\s+/);
    if (t.length < 5 || !/^\d+(\.\d+)?$/.test(t[0]) || !/^\d+$/.test(t[3])) continue;
    const name = t[t.length - 1];
    if (name === 'total') total = Number(t[3]);
    else calls[name] = (calls[name] ?? 0) + Number(t[3]);
  }
  if (!Number.isFinite(total)) total = Object.values(calls).reduce((s, x) => s + x, 0);
  const fsyncs = FSYNC_CALLS.reduce((s, n) => s + (calls[n] ?? 0), 0);
  return { total, fsyncs, calls };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Resolves once this process has been quiet: CPU over every thread (getrusage, one call per poll)
 * grew by at most `maxCpuMs` in the last `quietMs`, polled every `everyMs`, and no file-system request
 * of the main loop is in flight at the last poll (an fsync waiting on a slow disk burns no CPU). A bot
 * that defers work past its replies (writes behind the message) is busy until that work is done.
 * @param {{ everyMs?: number, quietMs?: number, maxCpuMs?: number, timeoutMs?: number }} [o]
 * @returns {Promise<{ quiet: boolean, waitedMs: number }>}
 */
async function waitQuiet(o = {}) {
  const { everyMs = 100, quietMs = 500, maxCpuMs = 10, timeoutMs = 60_000 } = o;
  const start = Date.now();
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  /** @type {number[]} */
  const samples = [cpuMs()];
  const keep = Math.max(1, Math.round(quietMs / everyMs));
  for (;;) {
    await sleep(everyMs);
    samples.push(cpuMs());
    if (samples.length > keep + 1) samples.shift();
    const fsBusy = process.getActiveResourcesInfo().some((r) => r.startsWith('FSReq'));
    if (!fsBusy && samples.length === keep + 1 && samples[keep] - samples[0] <= maxCpuMs) return { quiet: true, waitedMs: Date.now() - start };
    if (Date.now() - start > timeoutMs) return { quiet: false, waitedMs: Date.now() - start };
  }
}

/**
 * Attaches strace to every thread of `pid` (normally this process) and waits until all are traced.
 * @param {number} pid @param {string} file where strace writes its summary
 */
async function startStrace(pid, file) {
  const bin = ['/usr/bin/strace', '/bin/strace'].find((p) => fs.existsSync(p));
  if (!bin) throw new Error('--strace needs strace (e.g. apt-get install strace)');
  const st = spawn(bin, ['-f', '-c', '-o', file, '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  /** @type {() => void} */
  let onAttached = () => {};
  st.stderr.on('data', (d) => {
    stderr += d;
    if (/attached/.test(stderr)) onAttached();
  });
  /** @type {Promise<string>} */
  const exited = new Promise((resolve) => st.once('exit', (code, signal) => resolve(signal ?? String(code))));
  const tracedBy = (tid) => {
    try {
      return Number(/^TracerPid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'))?.[1]) === st.pid;
    } catch {
      return true; // the task ended: nothing left to wait for
    }
  };
  // Wait for strace's "attached" line (no polling: every read of /proc here would be counted), then
  // check once that the kernel shows every task traced.
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const attached = await Promise.race([
    new Promise((resolve) => (onAttached = () => resolve(true))),
    exited.then(() => false),
    new Promise((resolve) => (timer = setTimeout(() => resolve(false), 10_000))),
  ]);
  clearTimeout(timer);
  for (let i = 0; attached && i < 200 && !fs.readdirSync(`/proc/${pid}/task`).every(tracedBy); i++) await sleep(5);
  if (!attached || !fs.readdirSync(`/proc/${pid}/task`).every(tracedBy)) {
    st.kill('SIGKILL');
    throw new Error(`strace did not attach to ${pid}: ${stderr.trim() || 'timed out'}`);
  }
  return {
    /** Detaches strace (SIGINT) and returns its counts. */
    async stop() {
      st.kill('SIGINT');
      // strace detaches, writes its table and re-raises the SIGINT on itself
      const how = await exited;
      if (how !== 'SIGINT' && how !== '0') throw new Error(`strace ended with ${how}: ${stderr.trim()}`);
      return parseStraceSummary(fs.readFileSync(file, 'utf8'));
    },
  };
}

module.exports = { threadSnapshot, threadCpuDelta, resetPeakRss, peakRssBytes, startStrace, parseStraceSummary, waitQuiet, FSYNC_CALLS };
