#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * One phase of the load benchmark (issue 7 §4), run in its own process by bench/load.js so that
 * peak RSS, JIT warm-up and leftover heap of one phase never leak into the other.
 *
 *   node --expose-gc bench/load-run.js --mode minutes|baseline [--fakes child|same] [--channels 100]
 *                          [--messages 20] [--latency 20] [--burst] [--warm] [--timeout-ms 300000] [--dist DIR]
 *                          [--settle-ms 1000] [--strace]
 *   diagnostics: [--data-root /dev/shm] [--limiter none] [--breakdown] [--profile FILE]
 *
 * Where the fakes run (--fakes):
 *   child  (default) the fake Discord and the fake Anthropic server run in a child process
 *          (bench/load-fakes.js, TypeScript through test/helpers/register-ts.js) driven over IPC;
 *          this process holds only the bot under test, so its event loop, RSS and CPU are the bot's.
 *   same   the old arrangement: fakes and bot share this process and its event loop (the fakes'
 *          JSON encoding of the gateway dispatches and HTTP serving compete with the bot).
 * Every timestamp is `performance.timeOrigin + performance.now()` (ms since the epoch, sub-ms) in
 * both processes: the same machine clock. The bot is the compiled dist (`npm run build`).
 *
 *   minutes   the real bot, launchBot() from dist/bot/start/start.js, with its trace hook
 *   baseline  a bare discord.js Client (same createDiscordClient options) that merges pending
 *             mentions per channel exactly like the bot's Inbox, calls the same fake model with
 *             fetch(), and replies with channel.send: no memory files, recall, typing or logging
 *
 * Messages: `load cCCCC mMM` (bench/load-keys.js: up to 10,000 channels × 100 messages) from one
 * member, mentioning the bot, round-robin over the channels (message 0 in every channel, then
 * message 1, …), yielding to the event loop (setImmediate) after each round unless --burst. The fake
 * model echoes the ids it saw in the newest user turn (`ack cCCCC mMM …`), so the replies on the fake
 * Discord prove each message was answered exactly once and in order.
 *
 * What this process measures of itself (bench/load-proc.js), over the window from just before the
 * dispatch command until it is quiet after the last message was answered (waitQuiet: work deferred
 * past the replies belongs to the messages):
 *   threadCpu    per-thread CPU from /proc/self/task: the main thread (tid = pid; schedstat's ns on
 *                CPU, else utime+stime ticks of stat), the other threads summed (started / ended in
 *                the window counted), and the process total from getrusage;
 *                threadCpuUntilLastAnswer = the same up to the last answer
 *   rss          idle (after start-up, a gc), peak (the kernel's VmHWM, reset at the mark, read at
 *                the window's end), after (the burst answered and quiet, 500 ms + --settle-ms, two
 *                global.gc(); run with --expose-gc)
 *   strace       --strace only: `strace -f -c` attached to this process (all threads, and those it
 *                starts) for the window; calls per system call, total, fsync-like calls. Times from
 *                a traced run are meaningless (strace stops every call); the bench's own sampler and
 *                event-loop-delay timer stay off in it
 *   ms.dispatchToModel  per message: the fake model's receipt of the chat request carrying it −
 *                the fake gateway's dispatch (both on the fakes' clock)
 *   timeline.firstTurnMarks  each channel's first message: every trace mark (and the fake model's
 *                receipt) as ms after the message was received, p50 / p95: where a burst's first
 *                requests wait
 *
 * Before the burst: the REST calls of the start (slash commands) have been quiet for 300 ms, then
 * the process is quiet (waitQuiet): a bot's start-up work (its warm-up indexes the recent channels
 * in the background after login) is done, so the burst meets a running bot (startQuietMs says how
 * long that took). Until 2026-11-28 the burst could meet the warm-up half done.
 *
 * --warm: before the measured window every channel gets one `warm up` mention and
 * its reply, so the burst meets channels whose files and ledger already exist. The result (JSON) goes to the parent over IPC, or to stdout.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { fork } = require('node:child_process');
const { Writable } = require('node:stream');
const v8 = require('node:v8');
const { performance, monitorEventLoopDelay } = require('node:perf_hooks');

const root = path.resolve(__dirname, '..');

/** The compiled bot: ./dist, or the snapshot bench/load.js passes with --dist. */
let distDir = path.join(root, 'dist');
/** @param {string} rel */
function dist(rel) {
  const file = path.join(distDir, rel);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run npm run build first`);
  return require(file);
}

const { KEY, MAX_CHANNELS, MAX_MESSAGES, parseKey } = require('./load-keys.js');
const { threadSnapshot, threadCpuDelta, resetPeakRss, peakRssBytes, startStrace, waitQuiet } = require('./load-proc.js');

const STAGES = /** @type {const} */ (['received', 'model-sent', 'model-done', 'send-issued']);
/** The machine clock, ms since the epoch with sub-ms resolution; the same in the fakes' process. */
const now = () => performance.timeOrigin + performance.now();

/**
 * Gives every channel the same MEMORY.md of `n` project facts (bench/data/gen-project-channel.js), so
 * recall has candidates to score and the sentence model a message to embed on every turn.
 * @param {string} dataDir @param {string} guildId @param {string[]} channelIds @param {number} n
 */
function seedMemory(dataDir, guildId, channelIds, n) {
  const { generate } = require('./data/gen-project-channel');
  const src = path.join(dataDir, '..', 'seed');
  generate(src, { facts: n, seed: 3 });
  const memory = fs.readFileSync(path.join(src, 'MEMORY.md'));
  for (const c of channelIds) {
    fs.mkdirSync(path.join(dataDir, guildId, c), { recursive: true });
    fs.writeFileSync(path.join(dataDir, guildId, c, 'MEMORY.md'), memory);
  }
}

function parseArgs(argv) {
  const o = {
    mode: 'minutes',
    fakes: 'child',
    channels: 100,
    messages: 20,
    latency: 20,
    burst: false,
    warm: false,
    timeoutMs: 300_000,
    dataRoot: os.tmpdir(),
    limiter: 'config',
    breakdown: false,
    profile: '',
    semantic: 'local',
    memory: 50,
    strace: false,
    settleMs: 1000,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    if (a === '--mode') o.mode = next();
    else if (a === '--fakes') o.fakes = next();
    else if (a === '--channels') o.channels = Number(next());
    else if (a === '--messages') o.messages = Number(next());
    else if (a === '--latency') o.latency = Number(next());
    else if (a === '--burst') o.burst = true;
    else if (a === '--warm') o.warm = true;
    else if (a === '--timeout-ms') o.timeoutMs = Number(next());
    else if (a === '--data-root') o.dataRoot = next();
    else if (a === '--limiter') o.limiter = next();
    else if (a === '--breakdown') o.breakdown = true;
    else if (a === '--profile') o.profile = next();
    else if (a === '--semantic') o.semantic = next();
    else if (a === '--memory') o.memory = Number(next());
    else if (a === '--strace') o.strace = true;
    else if (a === '--settle-ms') o.settleMs = Number(next());
    else if (a === '--dist') distDir = path.resolve(next());
    else throw new Error(`unknown option ${a}`);
  }
  if (o.mode !== 'minutes' && o.mode !== 'baseline') throw new Error('--mode minutes|baseline');
  if (o.fakes !== 'child' && o.fakes !== 'same') throw new Error('--fakes child|same');
  if (o.limiter !== 'config' && o.limiter !== 'none') throw new Error('--limiter config|none');
  if (o.messages > MAX_MESSAGES || o.channels > MAX_CHANNELS)
    throw new Error(`at most ${MAX_CHANNELS} channels × ${MAX_MESSAGES} messages (bench/load-keys.js: ids are cCCCC mMM)`);
  return o;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The fakes in a child process (bench/load-fakes.js), behind the same async methods createWorld
 * returns. Also estimates the two processes' clock offset from IPC round trips (should be ~0: both
 * read the same machine clock; the bound is half the round trip).
 */
async function forkWorld(o) {
  const child = fork(
    path.join(__dirname, 'load-fakes.js'),
    ['--channels', String(o.channels), '--messages', String(o.messages), '--latency', String(o.latency)],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  let seq = 0;
  /** @type {Map<number, { resolve: (v: any) => void, reject: (e: Error) => void }>} */
  const waiting = new Map();
  child.on('message', (/** @type {any} */ m) => {
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (m.ok) w.resolve(m.value);
    else w.reject(new Error(`load-fakes: ${m.error}`));
  });
  child.on('exit', (code) => {
    for (const w of waiting.values()) w.reject(new Error(`load-fakes exited ${code}`));
    waiting.clear();
  });
  const call = (cmd, args) =>
    new Promise((resolve, reject) => {
      const id = ++seq;
      waiting.set(id, { resolve, reject });
      child.send({ id, cmd, args });
    });
  const world = {
    info: () => call('info'),
    restCount: () => call('restCount'),
    warm: () => call('warm'),
    mark: () => call('mark'),
    dispatch: (a) => call('dispatch', a),
    waitAcked: (a) => call('waitAcked', a),
    collect: () => call('collect'),
    stop: async () => {
      await call('stop');
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
    },
    /** offset = child clock − this clock, from the round trip with the smallest delay */
    clockOffset: async () => {
      let best = { rtt: Infinity, offset: NaN };
      for (let i = 0; i < 20; i++) {
        const t1 = now();
        const t2 = /** @type {number} */ (await call('now'));
        const t3 = now();
        if (t3 - t1 < best.rtt) best = { rtt: t3 - t1, offset: t2 - (t1 + t3) / 2 };
      }
      return best;
    },
  };
  return world;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const { createDiscordClient, NO_PINGS } = dist('bot/discord/client.js');

  // ---- the world (fake Discord + fake model) ----------------------------------------------------
  const world = o.fakes === 'same' ? await require('./load-fakes.js').createWorld(o) : await forkWorld(o);
  const info = await world.info();
  const clock = o.fakes === 'child' ? await /** @type {any} */ (world).clockOffset() : { rtt: 0, offset: 0 };
  const channelIds = /** @type {string[]} */ (info.channelIds);

  /** Trace marks per message id (arrays, to catch doubles), on the machine clock. */
  /** @type {Map<string, Record<string, number[]>>} */
  const marksOf = new Map();
  /** @param {string} id @param {string} stage @param {number} at performance.now() of this process */
  const trace = (id, stage, at) => {
    let mk = marksOf.get(id);
    if (!mk) marksOf.set(id, (mk = {}));
    (mk[stage] ??= []).push(performance.timeOrigin + at);
  };

  // ---- the bot under test ----------------------------------------------------------------------
  const tmp = fs.mkdtempSync(path.join(o.dataRoot, 'minutes-load-'));
  /** @type {Record<string, number[]>} */
  const parts = {};
  const timed = (name, ms) => void (parts[name] ??= []).push(ms);
  /** @type {string[]} */
  const logLines = [];
  let stop;
  let client;
  const baselineStats = { modelRetries: 0 };
  if (o.mode === 'minutes') {
    const { launchBot } = dist('bot/start/start.js');
    const { ConfigFileSchema } = dist('config/schema.js');
    const { createLogger } = dist('log/logger.js');
    const dataDir = path.join(tmp, 'channels');
    if (o.memory > 0) seedMemory(dataDir, info.guildId, channelIds, o.memory);
    const settings = {
      // Recall as shipped: words and meaning (the packaged model in its worker thread). The cache is
      // kept between runs: every channel holds the same lines, embedded once, so the burst measures
      // steady state (each message's own vector), not a first indexing.
      semantic: { mode: o.semantic, cacheDir: path.join(root, 'bench', 'out', 'load-vectors') },
      dataDir,
      configFile: null,
      // 0 = unlimited for both (src/app/runtime.ts): no Bottleneck cap on rate or concurrency.
      config: ConfigFileSchema.parse({ limits: { requestsPerMinute: 0, concurrency: 0, maxRetries: 0 } }),
      discord: { token: info.botToken, apiUrl: info.apiUrl },
      anthropic: { apiKey: 'test-key', baseURL: info.modelBaseURL },
      openai: {},
      log: {},
    };
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n')) if (l.trim()) logLines.push(l);
        done();
      },
    });
    const logger = createLogger({ level: 'warn', format: 'json', destination: sink });
    /** @type {Record<string, unknown>} */
    const extra = {};
    if (o.limiter === 'none') {
      // Diagnostic: the same client built directly with both limits 'unlimited'.
      const { createModelClient } = dist('llm/provider.js');
      extra.model = await createModelClient({
        logger,
        env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: info.modelBaseURL },
        limits: { requestsPerMinute: 'unlimited', maxConcurrent: 'unlimited' },
        retry: { maxAttempts: 1 },
      });
    }
    if (o.breakdown) instrumentStore(timed);
    const bot = await launchBot(settings, logger, { probes: { trace }, ...extra });
    client = bot.client;
    stop = () => bot.stop();
  } else {
    client = createDiscordClient({ apiUrl: info.apiUrl });
    attachBaseline(client, { trace, modelUrl: `${info.modelBaseURL}/v1/messages`, noPings: NO_PINGS, stats: baselineStats });
    await client.login(info.botToken);
    stop = () => client.destroy();
  }
  await new Promise((resolve) => (client.isReady() ? resolve(undefined) : client.once('clientReady', () => resolve(undefined))));
  // Let start-up REST calls (slash-command registration) finish before measuring.
  const settle = async () => {
    for (let quietFor = 0; quietFor < 300;) {
      const n = await world.restCount();
      await sleep(50);
      quietFor = (await world.restCount()) === n ? quietFor + 50 : 0;
    }
  };
  await settle();
  // Start-up work off the REST path finished too (the bot's warm-up indexes its recent channels in
  // the background after login): the burst measures a running bot, not one still starting.
  const startQuiet = await waitQuiet({ timeoutMs: 60_000 });
  let warmedChannels = 0;
  if (o.warm) {
    warmedChannels = await world.warm();
    await settle();
  }
  if (global.gc) global.gc();
  const rssIdle = process.memoryUsage.rss();

  // ---- sampling --------------------------------------------------------------------------------
  // Peak RSS is the kernel's high-water mark, reset here (load-proc.js); the 50 ms sampler is the
  // fallback where that is not allowed. A traced run (--strace) counts system calls only: the bench's
  // own timers (sampler, event-loop-delay monitor) stay off so they add no calls of their own.
  const hwm = resetPeakRss();
  let rssPeak = rssIdle;
  let heapPeak = v8.getHeapStatistics().used_heap_size;
  const sampler = o.strace
    ? undefined
    : setInterval(() => {
        if (!hwm) rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
        heapPeak = Math.max(heapPeak, v8.getHeapStatistics().used_heap_size);
      }, 50);
  const eld = monitorEventLoopDelay({ resolution: 10 });
  if (!o.strace) eld.enable();
  const profiler = o.profile ? await startProfiler() : null;
  const cpu0 = process.cpuUsage();
  const load0 = os.loadavg();
  await world.mark();

  // ---- dispatch (by the fakes), then wait until every message is acknowledged in a reply ---------
  // The window for CPU and system calls: from just before the dispatch command until this process is
  // quiet after the last answer (load-proc.js waitQuiet), so work the bot defers past its replies
  // (state and ledger writes) is counted for the messages that caused it; the part up to the last
  // answer is kept apart. strace (--strace) is attached and detached inside the window, so the /proc
  // reads at its ends are not counted as the bot's calls (and a traced run skips the split's).
  const total = o.channels * o.messages;
  const threads0 = threadSnapshot();
  const rusage0 = process.cpuUsage();
  const tracer = o.strace ? await startStrace(process.pid, path.join(tmp, 'strace.txt')) : null;
  const { t0, dispatchEnd } = await world.dispatch({ burst: o.burst });
  const waited = await world.waitAcked({ total, timeoutMs: Math.max(0, t0 + o.timeoutMs - now()) });
  const threads1 = o.strace ? null : threadSnapshot();
  const allDoneAt = waited.at;
  const quiet = await waitQuiet({ timeoutMs: 60_000 });
  const quietAt = now();
  const syscalls = tracer ? await tracer.stop() : null;
  const threads2 = threadSnapshot();
  const rusageWindow = process.cpuUsage(rusage0);
  if (profiler) await profiler.stop(o.profile);
  await sleep(500); // stragglers: a duplicate reply would land here
  if (sampler) clearInterval(sampler);
  eld.disable();
  const cpu = process.cpuUsage(cpu0);
  const load1 = os.loadavg();
  const wall = allDoneAt - t0;
  if (hwm) rssPeak = Math.max(rssPeak, peakRssBytes());
  else rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  // Memory once the burst is over: everything answered, a settle, then a full collection.
  await sleep(o.settleMs);
  if (global.gc) {
    global.gc();
    global.gc();
  }
  const rssAfter = process.memoryUsage.rss();
  const threadCpu = { ...threadCpuDelta(threads0, threads2), processMs: (rusageWindow.user + rusageWindow.system) / 1000, quiet };
  const untilLastAnswer = threads1 ? threadCpuDelta(threads0, threads1) : null;

  await stop();
  const col = await world.collect();
  await world.stop();

  /** Per message: key, ids, dispatch time, and every trace mark. */
  /** @type {Map<string, { key: string, c: number, m: number, id: string, dispatchAt: number, marks: Record<string, number[]> }>} */
  const byId = new Map();
  /** @type {Map<string, string>} */
  const idOfKey = new Map();
  for (const s of col.sent) {
    byId.set(s.id, { ...s, marks: marksOf.get(s.id) ?? {} });
    idOfKey.set(s.key, s.id);
  }
  const unknownTraces = [...marksOf.keys()].filter((id) => !byId.has(id)).length;

  // ---- replies as the fake Discord stored them ------------------------------------------------------
  const seenCount = new Map();
  let outOfOrder = 0;
  let wrongReplyRef = 0;
  let repliesTotal = 0;
  /** @type {number[]} */
  const turnsPerChannel = [];
  col.replies.forEach((/** @type {Array<{ content: string, ref: string | null }>} */ replies, ci) => {
    repliesTotal += replies.length;
    turnsPerChannel.push(replies.length);
    let last = -1;
    for (const r of replies) {
      const keys = r.content.match(KEY) ?? [];
      for (const k of keys) {
        seenCount.set(k, (seenCount.get(k) ?? 0) + 1);
        const { c, m } = parseKey(k);
        if (c !== ci || m <= last) outOfOrder++;
        last = Math.max(last, m);
      }
      if (keys.length && r.ref !== idOfKey.get(keys[keys.length - 1])) wrongReplyRef++;
    }
  });
  let lost = 0;
  let duplicated = 0;
  for (const rec of byId.values()) {
    const n = seenCount.get(rec.key) ?? 0;
    if (n === 0) lost++;
    if (n > 1) duplicated += n - 1;
  }

  // ---- timings --------------------------------------------------------------------------------------
  /** @type {Array<{ route: string | null, status: number, recvAt: number, doneAt: number, content: string | null, path: string }>} */
  const runRest = col.rest;
  const replyPosts = runRest.filter((r) => r.route === 'POST /channels/:channelId/messages');
  /** fake-side receipt and answer of the reply that acknowledged each key */
  const replyOf = new Map();
  /** per channel, reply POSTs in order (answered), to find when each turn could start */
  const repliesByChannel = new Map();
  for (const r of replyPosts) {
    const keys = String(r.content ?? '').match(KEY) ?? [];
    for (const k of keys) if (!replyOf.has(k)) replyOf.set(k, r);
    const chId = r.path.split('/')[2];
    if (!repliesByChannel.has(chId)) repliesByChannel.set(chId, []);
    repliesByChannel.get(chId).push(r);
  }
  /** @type {Array<{ at: number, ids: string[], other: number }>} */
  const modelRequests = col.modelRequests;
  const chatRequests = modelRequests.filter((q) => q.ids.length);
  const modelReqOf = new Map();
  for (const q of chatRequests) for (const k of q.ids) if (!modelReqOf.has(k)) modelReqOf.set(k, q);

  /** @type {Record<string, number[]>} */
  const series = {
    gateway: [],
    queueWait: [],
    preRaw: [],
    preOwn: [],
    post: [],
    overheadRaw: [],
    overheadOwn: [],
    restWait: [],
    model: [],
    modelOut: [],
    modelBack: [],
    endToEnd: [],
    ownFirstTurn: [],
    ownLaterTurns: [],
    sendResolve: [],
    overheadOwnBot: [],
    ownBotFirstTurn: [],
    ownBotLaterTurns: [],
    dispatchToModel: [],
  };
  /** When the bot learned that a reply was sent (its send resolved): the trace of any key in it. */
  const sendDoneOf = (r) => {
    const k = (String(r.content ?? '').match(KEY) ?? [])[0];
    const rec = k ? byId.get(idOfKey.get(k)) : undefined;
    return rec?.marks['send-done']?.[0];
  };
  // Gateway dispatch → the fake model received the chat request carrying the message: both times are
  // the fakes' (one process, one clock), whatever the bot's trace marks say.
  for (const rec of byId.values()) {
    const q = modelReqOf.get(rec.key);
    if (q) series.dispatchToModel.push(q.at - rec.dispatchAt);
  }
  /** per turn (the batch's last message is its trigger) */
  const turnOwn = [];
  let traceAnomalies = 0;
  for (const rec of byId.values()) {
    const mk = rec.marks;
    if (STAGES.some((s) => (mk[s]?.length ?? 0) !== 1)) {
      traceAnomalies++;
      if (STAGES.some((s) => !mk[s]?.length)) continue;
    }
    const [recv, sent, done, issued] = STAGES.map((s) => mk[s][0]);
    const reply = replyOf.get(rec.key);
    const q = modelReqOf.get(rec.key);
    // The turn could start once the previous reply in this channel was answered by Discord (the
    // bot's Inbox awaits channel.send before taking the next batch).
    const chReplies = repliesByChannel.get(channelIds[rec.c]) ?? [];
    const idx = reply ? chReplies.indexOf(reply) : -1;
    const free = idx > 0 ? chReplies[idx - 1].doneAt : -Infinity;
    const start = Math.max(recv, free);
    series.gateway.push(recv - rec.dispatchAt);
    series.queueWait.push(start - recv);
    series.preRaw.push(sent - recv);
    series.preOwn.push(sent - start);
    series.post.push(issued - done);
    series.overheadRaw.push(sent - recv + issued - done);
    series.overheadOwn.push(sent - start + issued - done);
    // the channel's first turn (message 0 alone: creates the channel's files) vs the merged later ones
    (rec.m === 0 ? series.ownFirstTurn : series.ownLaterTurns).push(sent - start + issued - done);
    // The same, with the channel free once the bot's own send resolved (it cannot take the next
    // batch before: replies stay in order); the gap to the fake's answer is discord.js's REST work.
    const freeBot = idx > 0 ? sendDoneOf(chReplies[idx - 1]) : -Infinity;
    if (freeBot !== undefined) {
      const own = sent - Math.max(recv, freeBot) + issued - done;
      series.overheadOwnBot.push(own);
      (rec.m === 0 ? series.ownBotFirstTurn : series.ownBotLaterTurns).push(own);
    }
    series.model.push(done - sent);
    if (q) {
      series.modelOut.push(q.at - sent);
      series.modelBack.push(done - q.at - o.latency);
    }
    if (reply) {
      if (mk['send-done']?.length) series.sendResolve.push(mk['send-done'][0] - reply.doneAt);
      series.restWait.push(reply.recvAt - issued);
      series.endToEnd.push(reply.recvAt - rec.dispatchAt);
    }
    const ids = q?.ids ?? [];
    if (ids[ids.length - 1] === rec.key) turnOwn.push(sent - start + issued - done);
  }
  series.turnOwn = turnOwn;
  // The channels' first turns, every trace mark as ms after the message was received (p50 / p95):
  // where a burst's first requests spend their time before they leave
  /** @type {Record<string, number[]>} */
  const firstTurnMarks = {};
  for (const rec of byId.values()) {
    const recv = rec.marks.received?.[0];
    if (rec.m !== 0 || recv === undefined) continue;
    for (const [stage, at] of Object.entries(rec.marks)) (firstTurnMarks[stage] ??= []).push(at[0] - recv);
    const q = modelReqOf.get(rec.key);
    if (q) (firstTurnMarks['model-received'] ??= []).push(q.at - recv);
  }
  const lastReplyAt = replyPosts.length ? Math.max(...replyPosts.map((r) => r.recvAt)) : NaN;

  const routes = {};
  for (const r of runRest) routes[r.route ?? `${r.path} (unrouted)`] = (routes[r.route ?? `${r.path} (unrouted)`] ?? 0) + 1;
  const warnings = logLines.filter((l) => /"level":(40|50|60)/.test(l));

  const result = {
    mode: o.mode,
    fakes: o.fakes,
    channels: o.channels,
    messagesPerChannel: o.messages,
    messages: total,
    latencyMs: o.latency,
    burst: o.burst,
    warm: o.warm,
    straced: o.strace,
    warmedChannels,
    /** how long the process took to be quiet after the REST settle (start-up work), ms */
    startQuietMs: startQuiet.waitedMs,
    node: process.version,
    cpus: os.cpus().length,
    loadavgBefore: load0,
    loadavgAfter: load1,
    clock,
    dispatchMs: dispatchEnd - t0,
    wallMs: wall,
    lastReplyMs: lastReplyAt - t0,
    messagesPerSecond: total / ((lastReplyAt - t0) / 1000),
    answered: waited.acked,
    lost,
    duplicated,
    outOfOrder,
    wrongReplyRef,
    traceAnomalies,
    unknownTraces,
    timedOut: waited.acked < total,
    turns: chatRequests.length,
    replies: repliesTotal,
    mergeRatio: total / Math.max(1, chatRequests.length),
    turnsPerChannel: summary(turnsPerChannel),
    otherModelRequests: modelRequests.length - chatRequests.length,
    baselineModelRetries: o.mode === 'baseline' ? baselineStats.modelRetries : null,
    restCalls: runRest.length,
    restByRoute: routes,
    // how the replies and the model requests spread over the run (discord.js sends at most 50
    // requests in each second's window): counts per 250 ms from the dispatch's start
    timeline: {
      firstTurnMarks: Object.fromEntries(
        Object.entries(firstTurnMarks)
          .map(([stage, v]) => [stage, summary(v)])
          .sort((a, b) => a[1].p50 - b[1].p50)
          .map(([stage, st]) => [stage, { p50: Math.round(st.p50), p95: Math.round(st.p95) }]),
      ),
      // the first replies' triggers, stage by stage (ms from the dispatch's start): where the
      // first second goes before the REST windows can fill
      firstReplies: replyPosts
        .slice()
        .sort((a, b) => a.recvAt - b.recvAt)
        .slice(0, 5)
        .map((r) => {
          const keys = String(r.content ?? '').match(KEY) ?? [];
          const rec = byId.get(idOfKey.get(keys[keys.length - 1]));
          if (!rec) return null;
          const at = (s) => (rec.marks[s]?.[0] === undefined ? null : Math.round(rec.marks[s][0] - t0));
          return {
            key: rec.key,
            dispatched: Math.round(rec.dispatchAt - t0),
            received: at('received'),
            modelSent: at('model-sent'),
            modelReceived: modelReqOf.get(rec.key) ? Math.round(modelReqOf.get(rec.key).at - t0) : null,
            modelDone: at('model-done'),
            sendIssued: at('send-issued'),
            replyReceived: Math.round(r.recvAt - t0),
          };
        }),
      bucketMs: 250,
      replies: perBucket(
        replyPosts.map((r) => r.recvAt - t0),
        250,
      ),
      chatRequests: perBucket(
        chatRequests.map((q) => q.at - t0),
        250,
      ),
    },
    // this process: the bot alone with --fakes child, bot + fakes with --fakes same
    rss: {
      idleMB: mb(rssIdle),
      peakMB: mb(rssPeak),
      peakSource: hwm ? 'VmHWM (kernel peak, reset at the mark)' : 'sampled every 50 ms',
      afterMB: mb(rssAfter),
      afterSettleMs: 500 + o.settleMs,
      afterGc: Boolean(global.gc),
      heapPeakMB: mb(heapPeak),
    },
    // per-thread CPU from /proc over the window, dispatch → quiet after the last answer
    // (bench/load-proc.js), and the part of it up to the last answer (not in traced runs)
    threadCpu,
    threadCpuUntilLastAnswer: untilLastAnswer && { mainMs: untilLastAnswer.mainMs, otherMs: untilLastAnswer.otherMs },
    // --strace: calls over the same window
    strace: syscalls,
    // cores: the process's CPU over the window (dispatch → quiet) / the window's length
    cpu: { userS: cpu.user / 1e6, systemS: cpu.system / 1e6, coresUsed: threadCpu.processMs / (quietAt - t0) },
    fakesProcess: o.fakes === 'child' ? { cpuS: col.cpu.userS + col.cpu.systemS, rssPeakMB: col.rssPeakMB } : null,
    eventLoopDelayMs: { p50: eld.percentile(50) / 1e6, p99: eld.percentile(99) / 1e6, max: eld.max / 1e6 },
    ms: Object.fromEntries(Object.entries(series).map(([k, v]) => [k, summary(v)])),
    problems: col.problems,
    unhandled: col.unhandled,
    warnings: warnings.length,
    firstWarnings: warnings.slice(0, 5),
    options: {
      dist: path.relative(root, distDir),
      dataRoot: o.dataRoot,
      limiter: o.limiter,
      breakdown: o.breakdown,
      uvThreadpool: process.env.UV_THREADPOOL_SIZE ?? '4 (default)',
    },
    breakdown: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, { ...summary(v), totalS: v.reduce((s, x) => s + x, 0) / 1000 }])),
  };
  fs.rmSync(tmp, { recursive: true, force: true });
  if (process.send) process.send(result, () => process.exit(0));
  else {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    process.exit(0);
  }
}

/** How many of `times` (ms) fall in each `size` ms bucket from 0. @param {number[]} times @param {number} size */
function perBucket(times, size) {
  /** @type {number[]} */
  const counts = [];
  for (const t of times) {
    const b = Math.max(0, Math.floor(t / size));
    while (counts.length <= b) counts.push(0);
    counts[b]++;
  }
  return counts;
}

/**
 * The baseline bot: what any Discord LLM bot must do, and nothing more. Same merging rule as
 * Minutes' Inbox (every mention since the last reply becomes one user turn, one turn at a time per
 * channel), same prompt line format, same fake model over HTTP, same reply shape.
 */
function attachBaseline(client, o) {
  /** @type {Map<string, Array<{ id: string, line: string }>>} */
  const pending = new Map();
  const busy = new Set();
  client.on('messageCreate', (m) => {
    const at = performance.now();
    const botId = client.user?.id;
    if (m.author.bot || !botId || !m.mentions.users.has(botId)) return;
    o.trace(m.id, 'received', at);
    const content = m.content.replace(new RegExp(`<@!?${botId}>`, 'g'), '@Minutes').trim();
    const name = m.member?.displayName ?? m.author.globalName ?? m.author.username;
    const line = `[${m.createdAt.toISOString().slice(0, 16).replace('T', ' ')} UTC] ${name}: ${content}`;
    const list = pending.get(m.channelId) ?? [];
    list.push({ id: m.id, line });
    pending.set(m.channelId, list);
    void drain(m.channel).catch((err) => console.error('baseline turn failed', err));
  });
  /**
   * One model call. In a 2,000-channel burst a channel's turns are seconds apart, and a pooled
   * keep-alive socket can be closed by the fake server (idle past its keep-alive timeout) just as the
   * call goes out ("other side closed"): the call is sent again, as an HTTP client would, and counted
   * (baselineModelRetries; had the fake read the first one, it would show as an extra turn).
   * @param {string} body
   */
  async function postModel(body) {
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await fetch(o.modelUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': 'test-key', 'anthropic-version': '2023-06-01' },
          body,
        });
        return await res.json();
      } catch (err) {
        const code = /** @type {any} */ (err)?.cause?.code;
        if (attempt >= 3 || (code !== 'UND_ERR_SOCKET' && code !== 'ECONNRESET')) throw err;
        o.stats.modelRetries++;
      }
    }
  }
  async function drain(channel) {
    if (busy.has(channel.id)) return;
    busy.add(channel.id);
    try {
      for (;;) {
        const batch = pending.get(channel.id);
        if (!batch?.length) break;
        pending.set(channel.id, []);
        const mark = (stage) => {
          const t = performance.now();
          for (const b of batch) o.trace(b.id, stage, t);
        };
        mark('model-sent');
        const json = await postModel(
          JSON.stringify({ model: 'claude-baseline', max_tokens: 1024, messages: [{ role: 'user', content: batch.map((b) => b.line).join('\n') }] }),
        );
        mark('model-done');
        const text = json.content.map((b) => b.text ?? '').join('');
        mark('send-issued');
        await channel.send({ content: text, allowedMentions: o.noPings, reply: { messageReference: batch[batch.length - 1].id, failIfNotExists: false } });
        mark('send-done'); // baseline only: when discord.js resolved the send (vs the fake's answer)
      }
    } finally {
      busy.delete(channel.id);
    }
  }
}

/**
 * --breakdown: times the store's building blocks by wrapping module exports the compiled store
 * looks up at call time (no src change): the per-channel queue + lock wait, the lock itself,
 * atomic writes (temp file, fsync, rename, directory fsync) and JSONL appends.
 */
function instrumentStore(timed) {
  const wrap = (mod, name, label) => {
    const orig = mod[name];
    mod[name] = async function (...args) {
      const t = performance.now();
      try {
        return await orig.apply(this, args);
      } finally {
        timed(label, performance.now() - t);
      }
    };
  };
  const lockfile = require('proper-lockfile');
  wrap(lockfile, 'lock', 'lock acquire (proper-lockfile mkdir)');
  wrap(dist('memory/atomicWrite.js'), 'atomicWrite', 'atomicWrite (fsync file + dir)');
  const { ChannelStore } = dist('memory/store.js');
  const proto = ChannelStore.prototype;
  const exclusive = proto.exclusive;
  proto.exclusive = function (p, task) {
    const queued = performance.now();
    return exclusive.call(this, p, async () => {
      timed('store queue + lock wait', performance.now() - queued);
      return task();
    });
  };
  for (const m of ['appendJsonl', 'writeState', 'ensureChannel', 'read', 'readState']) wrap(proto, m, `store.${m}`);
  const conv = dist('chat/conversation.js');
  wrap(conv, 'saveConversation', 'saveConversation');
  wrap(dist('chat/usage.js'), 'recordUsage', 'recordUsage');
}

/** --profile FILE: a V8 CPU profile of the measured window only (dispatch → last reply). */
async function startProfiler() {
  const inspector = require('node:inspector');
  const session = new inspector.Session();
  session.connect();
  const post = (method, params) => new Promise((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 500 });
  await post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = /** @type {any} */ (await post('Profiler.stop'));
      fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      fs.writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

function summary(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return { n: 0 };
  const at = (p) => v[Math.min(v.length - 1, Math.max(0, Math.ceil((p / 100) * v.length) - 1))];
  const mean = v.reduce((s, x) => s + x, 0) / v.length;
  return { n: v.length, min: v[0], p50: at(50), p95: at(95), p99: at(99), max: v[v.length - 1], mean };
}

const mb = (b) => Math.round((b / 1048576) * 10) / 10;

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
