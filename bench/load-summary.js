// @ts-check
'use strict';
/**
 * The load benchmark's figures per side (bench/load.js --json): one run's result from
 * bench/load-run.js → the figures issue 25's goals are read on, and the median over the paired runs.
 *
 * Per run:
 *   msgs_per_s                 messages / (last reply received by the fake Discord − dispatch start)
 *   rest_requests              REST requests the fake Discord received in the window
 *   main_cpu_us_per_msg        the bot process's main thread, CPU over the window (/proc schedstat) / messages;
 *                              the window runs from just before the dispatch until the process is quiet
 *                              after the last answer (work deferred past the replies counts)
 *   main_cpu_to_last_answer_us_per_msg   the same, up to the last answer only
 *   other_threads_cpu_us_per_msg   the other threads summed (tasks under /proc/<pid>/task) / messages
 *   process_cpu_us_per_msg     getrusage of the process over the same window (keeps threads that ended) / messages
 *   quiet_after_ms             last answer → quiet (includes the 500 ms of quiet that ends the wait)
 *   dispatch_to_model_p50_ms / _p95_ms   fake model's receipt of the chat request carrying a message −
 *                              the fake gateway's dispatch of it, over every message
 *   peak_rss_mb, rss_idle_mb, rss_after_mb   the bot process (see bench/load-run.js)
 *   turns                      chat requests the fake model received
 *   syscalls_per_msg, syscalls_no_futex_per_msg, fsyncs_per_turn   from the traced runs (--strace) only,
 *                              null without: calls counted by strace / messages; fsync + fdatasync +
 *                              sync_file_range / turns
 *   lost, duplicated, out_of_order   summed over every run of the side (traced ones too): any loss shows
 */

/** @param {number[]} xs */
function median(xs) {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return null;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** @param {number | null} x */
const round = (x) => (x === null || !Number.isFinite(x) ? null : Math.round(x * 100) / 100);

/** The timing and resource figures of one unstraced run. @param {any} r */
function timedFigures(r) {
  const perMsg = (ms) => (ms * 1000) / r.messages;
  return {
    msgs_per_s: r.messagesPerSecond,
    rest_requests: r.restCalls,
    main_cpu_us_per_msg: perMsg(r.threadCpu.mainMs),
    main_cpu_to_last_answer_us_per_msg: perMsg(r.threadCpuUntilLastAnswer?.mainMs ?? NaN),
    other_threads_cpu_us_per_msg: perMsg(r.threadCpu.otherMs),
    process_cpu_us_per_msg: perMsg(r.threadCpu.processMs),
    quiet_after_ms: r.threadCpu.quiet.waitedMs,
    dispatch_to_model_p50_ms: r.ms.dispatchToModel?.p50 ?? NaN,
    dispatch_to_model_p95_ms: r.ms.dispatchToModel?.p95 ?? NaN,
    peak_rss_mb: r.rss.peakMB,
    rss_idle_mb: r.rss.idleMB,
    rss_after_mb: r.rss.afterMB,
    turns: r.turns,
  };
}

const TIMED_KEYS = /** @type {const} */ ([
  'msgs_per_s',
  'rest_requests',
  'main_cpu_us_per_msg',
  'main_cpu_to_last_answer_us_per_msg',
  'other_threads_cpu_us_per_msg',
  'process_cpu_us_per_msg',
  'quiet_after_ms',
  'dispatch_to_model_p50_ms',
  'dispatch_to_model_p95_ms',
  'peak_rss_mb',
  'rss_idle_mb',
  'rss_after_mb',
  'turns',
]);

/** The counts of one traced run. @param {any} r */
function straceFigures(r) {
  const s = r.strace;
  return {
    syscalls_per_msg: s.total / r.messages,
    syscalls_no_futex_per_msg: (s.total - (s.calls.futex ?? 0)) / r.messages,
    fsyncs_per_turn: s.fsyncs / Math.max(1, r.turns),
  };
}

/**
 * One side's figures: medians over its unstraced runs (timings) and over its traced runs (counts).
 * @param {any[]} timed results of bench/load-run.js without --strace
 * @param {any[]} traced results with --strace
 */
function side(timed, traced) {
  const t = timed.map(timedFigures);
  const s = traced.map(straceFigures);
  /** @type {Record<string, number | null>} */
  const out = { runs: timed.length, messages: timed[0]?.messages ?? traced[0]?.messages ?? null };
  for (const k of TIMED_KEYS) out[k] = round(median(t.map((f) => f[k])));
  for (const k of ['syscalls_per_msg', 'syscalls_no_futex_per_msg', 'fsyncs_per_turn'])
    out[k] = traced.length ? round(median(s.map((f) => /** @type {any} */ (f)[k]))) : null;
  out.strace_runs = traced.length;
  const all = [...timed, ...traced];
  out.lost = all.reduce((n, r) => n + r.lost, 0);
  out.duplicated = all.reduce((n, r) => n + r.duplicated, 0);
  out.out_of_order = all.reduce((n, r) => n + r.outOfOrder, 0);
  return out;
}

/**
 * The --json line: bare client and Minutes of one arrangement, and the 1-minute load average
 * before the first run.
 * @param {any[]} results every run (bench/load.js's list: run, variant, arrangement, straced, …)
 * @param {string} arrangement
 * @param {number} loadAvg
 */
function jsonLine(results, arrangement, loadAvg) {
  const of = (variant, straced) => results.filter((r) => r.arrangement === arrangement && r.variant === variant && Boolean(r.straced) === straced);
  return JSON.stringify({
    bare: side(of('baseline', false), of('baseline', true)),
    minutes: side(of('minutes', false), of('minutes', true)),
    load_avg: round(loadAvg),
  });
}

module.exports = { jsonLine, side, median, timedFigures, straceFigures };
