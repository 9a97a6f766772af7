#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Prompt-cache benchmark (issue 4 §5, issue 5 §6).
 *
 * Runs the real CLI, `node bin/minutes.js chat --channel cachebench` (compiled dist), as a child
 * process against the fake Anthropic server (test/fakes/model/server.ts, which measures prefix
 * caching per cache_control breakpoint), feeding stdin one line at a time and waiting for each
 * block's `---` terminator:
 *
 *   1. 40-message project discussion (bench/data/cache/discussion.txt) with a seeded CONTEXT.md and
 *      MEMORY.md (bench/data/cache/) → share of chat input tokens read from cache over turns 2-40,
 *      uncached + cache-write tokens per turn.
 *   2. Sliding-window baseline in the same run: the same system prompt, CONTEXT, user turns, recall
 *      blocks and replies, sent with @anthropic-ai/sdk to a fresh fake server as a last-N=20-messages
 *      window with the recall block placed before the window (in the system prompt, after CONTEXT).
 *   1b. The same discussion with a context package active in the channel (made from a second console
 *      channel's memory, named items and a query, about 1,000 tokens): its items ride in the stable
 *      part, so the share read from cache should stay at least as high.
 *   3. 400 turns with conversation.tokenBudget 6000 (minutes.config.json in the child's cwd), so the
 *      conversation compacts several times → input tokens per chat call at turns 10/40/400, cache
 *      share over all turns, compactions, side-task calls and tokens per 100 chat messages.
 *
 * Usage: npm run bench:cache   (= npm run build && node bench/cache.js)
 *   options: --turns N (long run, default 400)  --budget T (default 6000)  --latency MS (default 20)
 *            --skip-long  --keep (keep the temp data dirs)  --out FILE (default bench/out/cache.json)
 * Writes only under bench/out and a fresh temp dir per run.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { spawn } = require('node:child_process');

const root = path.resolve(__dirname, '..');
require('../test/helpers/register-ts.js');
/** @type {typeof import('../test/fakes/model/server')} */
// @ts-ignore -- a .ts path, loaded through the transpile-on-require hook above
const { startFakeModelServer } = require('../test/fakes/model/server.ts');
const Anthropic = require('@anthropic-ai/sdk').default;
const { makeHandler, sideTaskOf } = require('./cache-fake.js');
const { generateLines } = require('./cache-lines.js');

const bin = path.join(root, 'bin', 'minutes.js');
const dataDir = path.join(root, 'bench', 'data', 'cache');
const CHANNEL = 'cachebench';

const { arg } = require('./args.js');
const LONG_TURNS = Number(arg('--turns', '400'));
const BUDGET = Number(arg('--budget', '6000'));
const LATENCY = Number(arg('--latency', '20'));
const WINDOW = 20;
const outFile = path.resolve(arg('--out', path.join(root, 'bench', 'out', 'cache.json')));

/** The product's own defaults, from the compiled code the CLI runs. */
function models() {
  const p = path.join(root, 'dist', 'llm', 'provider.js');
  if (!fs.existsSync(p)) throw new Error('dist/ is missing: run `npm run bench:cache` (it builds first)');
  const { DEFAULT_MODELS } = require(p);
  return { chatModel: DEFAULT_MODELS.anthropic.chat, sideModel: DEFAULT_MODELS.anthropic.side };
}

/** @param {{inputTokens: number, cacheReadTokens: number, cacheWriteTokens: number}} u */
const totalIn = (u) => u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;

/**
 * One console session: fresh fake server (empty cache), fresh data dir and cwd, the CLI as a child.
 * @param {{ label: string, lines: string[], config?: object, chatModel: string, sideModel: string, setup?: (data: string) => Promise<void> }} o
 */
async function runConsoleSession(o) {
  const server = await startFakeModelServer({ latencyMs: LATENCY, handler: makeHandler(o) });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `minutes-cachebench-${o.label}-`));
  const data = path.join(tmp, 'data');
  const cwd = path.join(tmp, 'cwd');
  const chan = path.join(data, 'local', CHANNEL);
  fs.mkdirSync(chan, { recursive: true });
  fs.mkdirSync(cwd, { recursive: true });
  fs.copyFileSync(path.join(dataDir, 'CONTEXT.md'), path.join(chan, 'CONTEXT.md'));
  fs.copyFileSync(path.join(dataDir, 'MEMORY.md'), path.join(chan, 'MEMORY.md'));
  if (o.setup) await o.setup(data);
  /** @type {Record<string, string>} */
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmp,
    ANTHROPIC_API_KEY: 'bench',
    ANTHROPIC_BASE_URL: server.anthropicBaseURL,
    MINUTES_DATA_DIR: data,
    LOG_LEVEL: 'warn',
  };
  if (o.config) {
    const cfg = path.join(cwd, 'minutes.config.json');
    fs.writeFileSync(cfg, JSON.stringify(o.config, null, 2));
    env.MINUTES_CONFIG = cfg;
  }
  const child = spawn(process.execPath, [bin, 'chat', '--channel', CHANNEL], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  /** @type {string[]} */
  let block = [];
  /** @type {((b: string) => void) | null} */
  let waiter = null;
  readline.createInterface({ input: child.stdout }).on('line', (l) => {
    if (l !== '---') {
      block.push(l);
      return;
    }
    const b = block.join('\n');
    block = [];
    const w = waiter;
    waiter = null;
    if (w) w(b);
  });
  const chatReqs = () => server.requests.filter((r) => r.model === o.chatModel);
  const turns = [];
  const t0 = Date.now();
  for (const [i, line] of o.lines.entries()) {
    const before = chatReqs().length;
    const started = process.hrtime.bigint();
    const reply = await Promise.race([
      new Promise((resolve) => {
        waiter = resolve;
        child.stdin.write(`${line}\n`);
      }),
      exited.then((x) => {
        throw new Error(`${o.label}: the CLI exited at line ${i + 1}: ${JSON.stringify(x)}\n${stderr}`);
      }),
    ]);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const chat = chatReqs();
    if (chat.length !== before + 1)
      throw new Error(`${o.label}: line ${i + 1} made ${chat.length - before} chat requests (reply: ${String(reply).slice(0, 200)})`);
    if (String(reply).startsWith('error:')) throw new Error(`${o.label}: line ${i + 1}: ${reply}\n${stderr}`);
    turns.push({ turn: i + 1, ms, request: chat[chat.length - 1], sideSoFar: server.requests.length - chat.length });
    if ((i + 1) % 50 === 0) process.stderr.write(`  ${o.label}: ${i + 1}/${o.lines.length} turns\n`);
  }
  const chatWallMs = Date.now() - t0;
  child.stdin.end();
  const timeout = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const exit = /** @type {{code: number|null, signal: string|null}} */ (await exited);
  clearTimeout(timeout);
  await server.close();
  const read = (f) => {
    try {
      return fs.readFileSync(path.join(chan, f), 'utf8');
    } catch {
      return '';
    }
  };
  const conv = JSON.parse(read(path.join('.minutes', 'conversation.json')) || '{"turns":[]}');
  const usageFile = JSON.parse(read(path.join('.minutes', 'usage.json')) || '{"byModel":{}}');
  const result = {
    label: o.label,
    tmp,
    exit,
    stderr,
    chatWallMs,
    turns,
    requests: server.requests,
    conv,
    usageFile,
    history: read('HISTORY.md') + '\n' + read('HISTORY.archive.md'),
    memory: read('MEMORY.md'),
    session: read('SESSION.md'),
  };
  if (process.argv.includes('--keep')) process.stderr.write(`  ${o.label}: data kept in ${tmp}\n`);
  else fs.rmSync(tmp, { recursive: true, force: true });
  return result;
}

/** Per-turn cache figures for a list of recorded chat requests. */
function perTurn(/** @type {any[]} */ reqs) {
  return reqs.map((r, i) => {
    const u = r.usage;
    return { turn: i + 1, total: totalIn(u), read: u.cacheReadTokens, write: u.cacheWriteTokens, uncached: u.inputTokens, output: u.outputTokens };
  });
}

/** @param {{total: number, read: number, write: number, uncached: number}[]} rows */
function summarise(rows) {
  const sum = (k) => rows.reduce((n, r) => n + r[k], 0);
  const total = sum('total');
  const cost = rows.map((r) => r.uncached + r.write);
  return {
    turns: rows.length,
    inputTokens: total,
    cacheRead: sum('read'),
    cacheWrite: sum('write'),
    uncached: sum('uncached'),
    cacheShare: total ? sum('read') / total : 0,
    meanUncachedPlusWrite: cost.length ? cost.reduce((a, b) => a + b, 0) / cost.length : 0,
    /** Input billed in base-price tokens at Anthropic's 5-minute cache rates: read ×0.1, write ×1.25. */
    billedEquivalent: sum('uncached') + 1.25 * sum('write') + 0.1 * sum('read'),
  };
}

const RECALL_RE = /^(<recalled_memory>[\s\S]*?<\/recalled_memory>)\n\n/;

/**
 * The sliding-window baseline: the same system text, CONTEXT, user turns (as stored, without
 * recall), recall blocks and replies as run 1, laid out the way a typical windowed bot does it:
 * system = instructions + CONTEXT [breakpoint] + recall block (when any); messages = the last
 * WINDOW messages before the newest + the newest. Variant "+msg" also puts a breakpoint on the
 * last earlier message, as Minutes does.
 * @param {any} run1 @param {{chatModel: string, sideModel: string}} m @param {boolean} msgBreakpoint
 */
async function runSlidingWindow(run1, m, msgBreakpoint) {
  const chat = run1.turns.map((t) => t.request);
  const sys = chat[0].body.system.map((/** @type {any} */ b) => b.text);
  const identity = sys[0];
  const context = sys[1];
  const stored = run1.conv.turns;
  if (stored.length !== chat.length * 2) throw new Error(`baseline: conversation.json has ${stored.length} turns for ${chat.length} chat requests`);
  const server = await startFakeModelServer({ latencyMs: LATENCY });
  const sdk = new Anthropic({ apiKey: 'bench', baseURL: server.anthropicBaseURL, maxRetries: 0 });
  const history = [];
  for (let i = 0; i < chat.length; i++) {
    const newest = stored[2 * i].content;
    const reply = stored[2 * i + 1].content;
    const sent = chat[i].body.messages.at(-1).content[0].text;
    const recall = RECALL_RE.exec(sent)?.[1] ?? '';
    if (sent !== (recall ? `${recall}\n\n${newest}` : newest)) throw new Error(`baseline: turn ${i + 1}: could not separate recall from the message`);
    /** @type {any[]} */
    const system = [
      { type: 'text', text: identity },
      { type: 'text', text: context, cache_control: { type: 'ephemeral' } },
    ];
    if (recall) system.push({ type: 'text', text: recall });
    const window = history.slice(-WINDOW);
    /** @type {any[]} */
    const messages = window.map((h) => ({ role: h.role, content: [{ type: 'text', text: h.content }] }));
    if (msgBreakpoint && messages.length) messages[messages.length - 1].content[0].cache_control = { type: 'ephemeral' };
    messages.push({ role: 'user', content: [{ type: 'text', text: newest }] });
    server.enqueue(reply);
    await sdk.messages.create({ model: m.chatModel, max_tokens: 2048, system, messages });
    history.push({ role: 'user', content: newest }, { role: 'assistant', content: reply });
  }
  const reqs = server.requests.filter((r) => r.status === 200);
  await server.close();
  return perTurn(reqs);
}

function fmt(n, d = 0) {
  return typeof n === 'number' ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : String(n);
}
function pct(x) {
  return `${(x * 100).toFixed(1)}%`;
}
function pad(s, n) {
  s = String(s);
  return s.length >= n ? s : ' '.repeat(n - s.length) + s;
}
function table(/** @type {string[]} */ head, /** @type {any[][]} */ rows) {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : pad(c, w[i]))).join('  ');
  return [line(head), w.map((n) => '-'.repeat(n)).join('  '), ...rows.map(line)].join('\n');
}

/** Compact per-turn list: "t:v" for every turn, ten per line. */
function compactList(/** @type {number[]} */ xs, start = 1) {
  const out = [];
  for (let i = 0; i < xs.length; i += 10)
    out.push(
      `  ${pad(i + start, 3)}-${pad(Math.min(i + 10, xs.length) + start - 1, 3)}: ${xs
        .slice(i, i + 10)
        .map((x) => pad(x, 5))
        .join(' ')}`,
    );
  return out.join('\n');
}

/**
 * A package made from a second console channel (a copy of the seed MEMORY.md and CONTEXT.md, so the
 * items are about the same project) and activated in the bench channel, with the product's own code.
 * @param {string} data
 */
async function withPackage(data) {
  const other = path.join(data, 'local', 'decisions');
  fs.mkdirSync(other, { recursive: true });
  fs.copyFileSync(path.join(dataDir, 'CONTEXT.md'), path.join(other, 'CONTEXT.md'));
  fs.copyFileSync(path.join(dataDir, 'MEMORY.md'), path.join(other, 'MEMORY.md'));
  const { ChannelStore } = require(path.join(root, 'dist', 'memory', 'store.js'));
  const { buildRecallService } = require(path.join(root, 'dist', 'recall', 'service.js'));
  const { silentLogger } = require(path.join(root, 'dist', 'log', 'logger.js'));
  const { createPackage } = require(path.join(root, 'dist', 'packages', 'library.js'));
  const { activatePackage } = require(path.join(root, 'dist', 'packages', 'activation.js'));
  const store = new ChannelStore({ root: data });
  const recall = buildRecallService({ semantic: { mode: 'off', cacheDir: '' }, logger: silentLogger() });
  try {
    await createPackage(
      { store, search: (r) => recall.search(r) },
      {
        name: 'sync-v3',
        from: { kind: 'local', name: 'decisions' },
        query: 'sync v3 batches conflicts release',
        items: ['m-3f9a1c', 'm-0e93fa'],
        actor: 'bench',
      },
    );
    await activatePackage({ store }, { target: { kind: 'local', name: CHANNEL }, name: 'sync-v3', actor: 'bench' });
  } finally {
    await recall.close();
  }
}

async function main() {
  const m = models();
  const started = new Date();
  const result = {
    date: started.toISOString(),
    command: 'npm run bench:cache',
    node: process.version,
    models: m,
    latencyMs: LATENCY,
    fakeMinCacheableTokens: 1024,
  };
  console.log(`# prompt cache bench, ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, node ${process.version}`);
  console.log(
    `# CLI: node bin/minutes.js chat --channel ${CHANNEL} (dist), fake Anthropic server (latency ${LATENCY} ms, min cacheable 1,024 tokens); chat model ${m.chatModel}, side model ${m.sideModel}`,
  );

  // ---------- 1. 40-message discussion ----------
  const lines = fs
    .readFileSync(path.join(dataDir, 'discussion.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  const run1 = await runConsoleSession({ label: 'discussion', lines, ...m });
  const rows1 = perTurn(run1.turns.map((t) => t.request));
  const recallTok = run1.turns.map((t) => {
    const sent = t.request.body.messages.at(-1).content[0].text;
    const r = RECALL_RE.exec(sent)?.[1];
    return r ? Math.ceil((r.length + 2) / 4) : 0;
  });
  const stableTok = Math.ceil(run1.turns[0].request.body.system.map((b) => b.text).join('').length / 4);
  const bps = run1.turns.map((t) => {
    const b = t.request.body;
    const where = [];
    b.system.forEach((x, i) => x.cache_control && where.push(`system[${i}]`));
    b.messages.forEach((x, i) => x.content.some((c) => c.cache_control) && where.push(`messages[${i}]/${b.messages.length}`));
    return where.join(',');
  });
  const s1 = summarise(rows1.slice(1));
  const side1 = run1.requests.filter((r) => r.model === m.sideModel);

  // ---------- 1b. the same discussion, a context package active ----------
  const runP = await runConsoleSession({ label: 'package', lines, ...m, setup: withPackage });
  const rowsP = perTurn(runP.turns.map((t) => t.request));
  const sP = summarise(rowsP.slice(1));
  const pkgSystem = runP.turns[0].request.body.system.map((b) => b.text).join('');
  if (!pkgSystem.includes('<context_packages>')) throw new Error('package run: the package is not in the system prompt');
  const pkgTok = Math.ceil((/<context_packages>[\s\S]*<\/context_packages>/.exec(pkgSystem)?.[0].length ?? 0) / 4);

  // ---------- 2. sliding-window baseline ----------
  const rowsW = await runSlidingWindow(run1, m, false);
  const rowsW2 = await runSlidingWindow(run1, m, true);
  const sW = summarise(rowsW.slice(1));
  const sW2 = summarise(rowsW2.slice(1));

  console.log(
    `\n## 1-2. 40-message discussion (turns 2-${rows1.length}); stable prefix ≈ ${fmt(stableTok)} tokens (instructions + CONTEXT.md), recall on ${recallTok.filter(Boolean).length}/40 turns (mean ${fmt(recallTok.reduce((a, b) => a + b, 0) / 40)} tokens)`,
  );
  console.log(
    table(
      ['prompt', 'input tok', 'cache read', 'cache write', 'uncached', 'read share', 'uncached+write /turn', 'billed-equiv.*'],
      [
        [
          'minutes (append-only, recall on newest)',
          fmt(s1.inputTokens),
          fmt(s1.cacheRead),
          fmt(s1.cacheWrite),
          fmt(s1.uncached),
          pct(s1.cacheShare),
          fmt(s1.meanUncachedPlusWrite),
          fmt(s1.billedEquivalent),
        ],
        [
          `sliding window N=${WINDOW}, recall before window, bp end of CONTEXT`,
          fmt(sW.inputTokens),
          fmt(sW.cacheRead),
          fmt(sW.cacheWrite),
          fmt(sW.uncached),
          pct(sW.cacheShare),
          fmt(sW.meanUncachedPlusWrite),
          fmt(sW.billedEquivalent),
        ],
        [
          `  same + bp on last earlier message`,
          fmt(sW2.inputTokens),
          fmt(sW2.cacheRead),
          fmt(sW2.cacheWrite),
          fmt(sW2.uncached),
          pct(sW2.cacheShare),
          fmt(sW2.meanUncachedPlusWrite),
          fmt(sW2.billedEquivalent),
        ],
      ],
    ),
  );
  console.log('* input billed in base-price tokens at Anthropic 5-minute cache rates: uncached ×1, cache write ×1.25, cache read ×0.1');
  console.log(`goal ≥ 85% read from cache: ${s1.cacheShare >= 0.85 ? 'MET' : 'MISSED'} (${pct(s1.cacheShare)})`);
  console.log(
    `with a context package active (≈ ${fmt(pkgTok)} tokens in the stable part): read share ${pct(sP.cacheShare)}, uncached+write ${fmt(sP.meanUncachedPlusWrite)} a turn, ` +
      `input ${fmt(sP.inputTokens)} tokens — goal ≥ 85%: ${sP.cacheShare >= 0.85 ? 'MET' : 'MISSED'}`,
  );
  console.log('\nper turn, minutes — uncached+write tokens (turn 1 included):');
  console.log(compactList(rows1.map((r) => r.uncached + r.write)));
  console.log('per turn, minutes — cache read tokens:');
  console.log(compactList(rows1.map((r) => r.read)));
  console.log('per turn, minutes — recall block tokens (part of the uncached newest message):');
  console.log(compactList(recallTok));
  console.log(`per turn, sliding window N=${WINDOW} — uncached+write tokens:`);
  console.log(compactList(rowsW.map((r) => r.uncached + r.write)));
  console.log(`breakpoints (minutes, turn 1 / 2 / 40): ${bps[0]} | ${bps[1]} | ${bps[bps.length - 1]}`);
  console.log(
    `side tasks in run 1: ${side1.length} (${side1.map((r) => sideTaskOf(r.system)).join(', ') || 'none'}), run at end of input; CLI exit ${run1.exit.code}; mean turn ${fmt(run1.turns.reduce((a, t) => a + t.ms, 0) / run1.turns.length)} ms`,
  );

  Object.assign(result, {
    discussion: {
      turns: rows1.length,
      stablePrefixTokens: stableTok,
      turns2to40: s1,
      perTurn: rows1.map((r, i) => ({ ...r, recallTokens: recallTok[i], ms: Math.round(run1.turns[i].ms), breakpoints: bps[i] })),
      sideTasks: side1.map((r) => ({ task: sideTaskOf(r.system), ...r.usage })),
      exit: run1.exit,
    },
    withPackage: { packageTokens: pkgTok, turns2to40: sP, perTurn: rowsP },
    slidingWindow: { window: WINDOW, breakpoint: 'end of CONTEXT (system)', turns2to40: sW, perTurn: rowsW },
    slidingWindowMsgBreakpoint: { window: WINDOW, breakpoint: 'end of CONTEXT + last earlier message', turns2to40: sW2, perTurn: rowsW2 },
  });

  // ---------- 3. long run ----------
  if (!process.argv.includes('--skip-long')) {
    const longLines = generateLines(LONG_TURNS);
    const config = { conversation: { tokenBudget: BUDGET }, limits: { requestsPerMinute: 0 } };
    const run3 = await runConsoleSession({ label: 'long', lines: longLines, config, ...m });
    const rows3 = perTurn(run3.turns.map((t) => t.request));
    const s3 = summarise(rows3);
    const side = run3.requests.filter((r) => r.model === m.sideModel && r.status === 200);
    const byTask = {};
    for (const r of side) {
      const k = sideTaskOf(r.system);
      byTask[k] = byTask[k] ?? { calls: 0, input: 0, output: 0 };
      byTask[k].calls++;
      byTask[k].input += totalIn(r.usage);
      byTask[k].output += r.usage.outputTokens;
    }
    // Where each side call fell: after how many chat calls (in arrival order at the fake).
    let chatSeen = 0;
    const sideTimeline = [];
    for (const r of run3.requests) {
      if (r.model === m.chatModel) chatSeen++;
      else sideTimeline.push({ afterTurn: chatSeen, task: sideTaskOf(r.system), status: r.status, input: r.usage ? totalIn(r.usage) : 0 });
    }
    const sideIn = side.reduce((n, r) => n + totalIn(r.usage), 0);
    const sideOut = side.reduce((n, r) => n + r.usage.outputTokens, 0);
    const chatOut = rows3.reduce((n, r) => n + r.output, 0);
    const compactBlocks = (run3.history.match(/Conversation compacted/g) ?? []).length;
    const duringTurns = run3.turns.at(-1).sideSoFar;
    const per100 = (x) => (x * 100) / rows3.length;
    const at = (t) => rows3[t - 1];
    const convTok = run3.turns.map(
      (t) =>
        t.request.body.messages.slice(0, -1).reduce((n, mm) => n + Math.ceil(mm.content[0].text.length / 4), 0) +
        t.request.body.system.slice(2).reduce((n, b) => n + Math.ceil(b.text.length / 4), 0),
    );
    const buckets = [];
    for (let i = 0; i < rows3.length; i += 50) {
      const b = rows3.slice(i, i + 50);
      buckets.push({
        turns: `${i + 1}-${i + b.length}`,
        meanInput: b.reduce((n, r) => n + r.total, 0) / b.length,
        maxInput: Math.max(...b.map((r) => r.total)),
        share: summarise(b).cacheShare,
      });
    }
    console.log(`\n## 3. ${rows3.length}-turn run, conversation.tokenBudget ${BUDGET} (keepRecentTurns default), requestsPerMinute unlimited`);
    console.log(
      table(
        ['chat call', 'input tok', 'cache read', 'cache write', 'uncached', 'conversation tok (est.)'],
        [10, 40, rows3.length]
          .filter((t) => t <= rows3.length)
          .map((t) => [`turn ${t}`, fmt(at(t).total), fmt(at(t).read), fmt(at(t).write), fmt(at(t).uncached), fmt(convTok[t - 1])])
          .concat([['max over all turns', fmt(Math.max(...rows3.map((r) => r.total))), '', '', '', fmt(Math.max(...convTok))]]),
      ),
    );
    console.log(
      table(
        ['turns', 'mean input tok', 'max input tok', 'read share'],
        buckets.map((b) => [b.turns, fmt(b.meanInput), fmt(b.maxInput), pct(b.share)]),
      ),
    );
    console.log(
      `cache share over all ${rows3.length} turns: ${pct(s3.cacheShare)} (turns 2-${rows3.length}: ${pct(summarise(rows3.slice(1)).cacheShare)}); mean uncached+write per turn ${fmt(s3.meanUncachedPlusWrite)}`,
    );
    console.log(
      `compactions: ${byTask.compact?.calls ?? 0} compaction side calls, ${compactBlocks} "Conversation compacted" HISTORY blocks; conversation.json at end: ${run3.conv.turns.length} turns kept, ${run3.conv.compactedTurns} compacted`,
    );
    console.log(
      table(
        ['per 100 chat messages', 'calls', 'input tok', 'output tok'],
        [
          ['chat', fmt(100), fmt(per100(s3.inputTokens)), fmt(per100(chatOut))],
          ...Object.entries(byTask).map(([k, v]) => [`side: ${k}`, fmt(per100(v.calls), 1), fmt(per100(v.input)), fmt(per100(v.output))]),
          ['side: all', fmt(per100(side.length), 1), fmt(per100(sideIn)), fmt(per100(sideOut))],
        ],
      ),
    );
    console.log(
      `side/chat input tokens: ${pct(sideIn / s3.inputTokens)}; side/chat total tokens (in+out): ${pct((sideIn + sideOut) / (s3.inputTokens + chatOut))}; side input not cached (no breakpoints): ${fmt(side.reduce((n, r) => n + r.usage.cacheReadTokens, 0))} read`,
    );
    console.log(
      `at cache prices (chat billed-equivalent ${fmt(per100(s3.billedEquivalent))} per 100 messages; side input is never cached): side input = ${pct(sideIn / s3.billedEquivalent)} of chat input cost at the same per-token price, before the side model's lower price`,
    );
    console.log(`side calls (task@after-turn): ${sideTimeline.map((x) => `${x.task[0]}@${x.afterTurn}`).join(' ')}`);
    console.log(
      `side calls during the turns: ${duringTurns}, at end of input: ${side.length - duringTurns}; console mode starts no node-cron tick (createRuntime without scheduleUpkeep), so upkeep ran only when over budget after a turn and once at end of input`,
    );
    console.log(
      `CLI exit ${run3.exit.code}; wall ${fmt(run3.chatWallMs / 1000, 1)} s for ${rows3.length} turns (mean ${fmt(run3.turns.reduce((a, t) => a + t.ms, 0) / rows3.length)} ms/turn); MEMORY.md entries at end: ${(run3.memory.match(/^- \[m-/gm) ?? []).length}`,
    );
    if (run3.stderr.trim()) console.log(`stderr (first 600 chars): ${run3.stderr.trim().slice(0, 600)}`);
    Object.assign(result, {
      long: {
        turns: rows3.length,
        tokenBudget: BUDGET,
        allTurns: s3,
        at: { 10: at(10), 40: at(40), [rows3.length]: at(rows3.length) },
        maxInput: Math.max(...rows3.map((r) => r.total)),
        buckets,
        compactions: { sideCalls: byTask.compact?.calls ?? 0, historyBlocks: compactBlocks },
        sideTasks: byTask,
        sideCallsDuringTurns: duringTurns,
        sideTimeline,
        per100: {
          chatInput: per100(s3.inputTokens),
          chatBilledEquivalent: per100(s3.billedEquivalent),
          chatOutput: per100(chatOut),
          sideCalls: per100(side.length),
          sideInput: per100(sideIn),
          sideOutput: per100(sideOut),
        },
        inputPerTurn: rows3.map((r) => r.total),
        convTokPerTurn: convTok,
        readPerTurn: rows3.map((r) => r.read),
        exit: run3.exit,
      },
    });
  }
  if (run1.stderr.trim()) console.log(`\nrun 1 stderr (first 600 chars): ${run1.stderr.trim().slice(0, 600)}`);
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, JSON.stringify(result, null, 1));
  console.log(`\nJSON: ${path.relative(root, outFile)}`);
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : String(err));
  process.exitCode = 1;
});
