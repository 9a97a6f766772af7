#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Lifetime benchmark (issue 15 §1): does a channel a year old cost more per message than a channel
 * a week old, and has it lost anything?
 *
 * One busy channel (bench/lifetime-world.js) lives a simulated year through the real pipeline, in
 * process: the runtime's chat engine and upkeep (SESSION.md, MEMORY.md consolidation, compaction,
 * HISTORY.md) and the Secretary (condensations, context.json, CONTEXT.md, MEMORY.md decision lines),
 * with the real Anthropic SDK against the fake model server (test/fakes/model/server.ts) answering
 * as bench/lifetime-fake.js. The clock is simulated; every file write is real, in a temp folder.
 *
 * At 1 week, 1 month, 3 months and 1 year it reports: input tokens per chat call, bytes per
 * consolidation / condensation / SESSION.md request, file sizes, recall latency, RSS, whether every
 * MEMORY.md entry ever written is still there (current or struck through) unless a person forgot it,
 * and how many subjects have two "current" entries or decisions (a supersession the model missed
 * because it was not shown the older one).
 *
 * Usage: npm run bench:lifetime   (= node --expose-gc bench/lifetime.js)
 *   options: --days N (365)  --per-day N (messages a day, 56)  --condensations N (300)
 *            --keep (keep the data folder)  --out FILE (bench/out/lifetime.json)
 *            --heap-snapshot FILE (write one at the end, to see what the heap holds)
 *            --diagnose (say on stderr when consolidation was not shown a statement it changes)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
require('../test/helpers/register-ts.js');
// Loaded through the transpile-on-require hook above (TypeScript sources, no build needed).
const { startFakeModelServer } = require('../test/fakes/model/server.ts');
const { ConfigFileSchema } = require('../src/config/schema.ts');
const { createRuntime } = require('../src/app/runtime.ts');
const { silentLogger } = require('../src/log/logger.ts');
const { Secretary } = require('../src/condense/saga/secretary.ts');
const { ActionCommands } = require('../src/condense/knowledge/actionCommands.ts');
const { parseMemory } = require('../src/memory/entries.ts');
const { recallDirs } = require('../src/memory/layout.ts');
const { DEFAULT_MODELS } = require('../src/llm/provider.ts');
const { draftCondensation } = require('../src/condense/saga/draft.ts');
const { currentDecisions, activeConstraints } = require('../src/condense/knowledge/contextData.ts');
const { createWorld, SUBJECTS } = require('./lifetime-world.js');
const { makeLifetimeHandler, taskOf, subjectOf } = require('./lifetime-fake.js');

const { arg } = require('./args.js');
const { report, daily } = require('./lifetime-report.js');
const DAYS = Number(arg('--days', '365'));
const PER_DAY = Number(arg('--per-day', '56'));
const CONDENSATIONS = Number(arg('--condensations', '300'));
const outFile = path.resolve(arg('--out', path.join(root, 'bench', 'out', 'lifetime.json')));
const CHECKPOINTS = [
  { day: 7, label: '1 week' },
  { day: 30, label: '1 month' },
  { day: 91, label: '3 months' },
  { day: 365, label: '1 year' },
].filter((c) => c.day <= DAYS);
if (!CHECKPOINTS.length || CHECKPOINTS[CHECKPOINTS.length - 1].day !== DAYS) CHECKPOINTS.push({ day: DAYS, label: `day ${DAYS}` });

const DAY_MS = 86_400_000;
const PROBE_THREAD = [
  'The payments-api request timeout is too short for the bank callbacks.',
  'We could raise it, but the retries pile up behind it.',
  'Load tests with 15 s looked fine on staging.',
  'Then the on-call load stays the same, I checked last week.',
  'Agreed: 15 s for the payments-api request timeout.',
];
const START = Date.parse('2026-01-05T09:00:00Z');
const CHANNEL = 'platform';

async function main() {
  const models = DEFAULT_MODELS.anthropic;
  let now = START;
  const clock = () => new Date(now);
  // The fake's prompt cache runs on the simulated clock too, so it expires as it would in a year.
  const fake = await startFakeModelServer({ handler: makeLifetimeHandler({ chatModel: models.chat, sideModel: models.side }), now: () => now });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-lifetime-'));
  // --diagnose: the fake model says on stderr each time consolidation was not shown a current
  // statement of a subject it changes (the cause of a subject with two current entries).
  if (process.argv.includes('--diagnose')) process.env.LIFETIME_DIAGNOSE_MEMORY = path.join(tmp, 'local', 'platform', 'MEMORY.md');
  const settings = {
    dataDir: tmp,
    configFile: null,
    config: ConfigFileSchema.parse({ limits: { maxRetries: 0, requestsPerMinute: 0 } }),
    discord: null,
    anthropic: { apiKey: 'bench', baseURL: fake.anthropicBaseURL },
    openai: {},
    log: {},
    // Words only: the sentence model's background indexing of a year of lines would dominate the
    // run's wall time without changing what is measured here (request sizes and file growth).
    semantic: { mode: 'off', cacheDir: '' },
  };
  const rt = await createRuntime(settings, silentLogger(), { clock });
  const ref = { kind: 'local', name: CHANNEL };
  const p = rt.store.paths(ref);
  const deps = { model: rt.model, store: rt.store, logger: rt.logger, clock, usage: rt.usage, recall: rt.recall };
  const secretary = new Secretary({ deps });
  const actions = new ActionCommands(rt);
  const world = createWorld({ days: DAYS, messagesPerDay: PER_DAY, condensations: CONDENSATIONS });

  /** @type {{ day: number, task: string, bytes: number, tokens: number, parts?: Record<string, number> }[]} */
  const calls = [];
  const drain = (/** @type {number} */ day) => {
    for (const r of fake.requests) {
      const task = r.model === models.chat ? 'chat' : taskOf(r.system);
      const u = r.usage;
      const recall = /<recalled_memory>[\s\S]*?<\/recalled_memory>/.exec(r.lastUserText)?.[0].length ?? 0;
      const between = (/** @type {string} */ a, /** @type {string} */ b) => Math.max(0, r.lastUserText.indexOf(b) - r.lastUserText.indexOf(a));
      const parts =
        task === 'chat'
          ? { system: r.system.length, recall, conversation: r.messages.reduce((n, m) => n + m.text.length, 0) - recall }
          : task === 'condense'
            ? {
                decisions: between('Current key decisions', 'Active constraints:'),
                constraints: between('Active constraints:', 'The discussion, oldest first:'),
              }
            : undefined;
      calls.push({
        day,
        task,
        bytes: Buffer.byteLength(JSON.stringify(r.body)),
        tokens: u ? u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens : 0,
        parts,
      });
      if (r.status !== 200) throw new Error(`day ${day}: a ${task} request got HTTP ${r.status}`);
    }
    fake.requests.length = 0;
  };

  /** Every MEMORY.md entry id ever seen, and the ones a person asked to forget. */
  const everSeen = new Map();
  const forgotten = new Set();
  const remembered = [];
  const readMemory = () => parseMemory(fs.existsSync(p.memory) ? fs.readFileSync(p.memory, 'utf8') : '').filter((l) => l.kind === 'entry' && l.id);
  const noteEntries = () => {
    // A copy of the id: a slice would keep that day's whole MEMORY.md alive (V8 sliced strings),
    // and the bench's heap would then grow with the file, hiding the product's own.
    for (const l of readMemory()) if (!everSeen.has(l.id)) everSeen.set(Buffer.from(l.id).toString(), true);
  };

  let msgId = 1;
  /**
   * The same two requests at every checkpoint, so that only the channel's age can change them: a
   * question to the bot (its system prompt and recall block: the parts memory feeds) and the
   * Secretary's draft request for a fixed discussion (not filed).
   */
  const probe = async () => {
    fake.requests.length = 0;
    await rt.engine.respond(ref, [
      { id: String(msgId++), authorName: 'Priya', content: 'What request timeout does payments-api use now?', at: clock(), addressed: true },
    ]);
    const chat = fake.requests.find((r) => r.model === models.chat);
    const ctx = JSON.parse(fs.readFileSync(path.join(p.stateDir, 'context.json'), 'utf8'));
    const human = PROBE_THREAD.map((content, i) => ({
      id: `p${i}`,
      authorId: 'u-probe',
      authorName: i % 2 ? 'Lena' : 'Marcus',
      at: clock(),
      content,
      isBot: false,
    }));
    await draftCondensation(deps, {
      ref,
      channelName: CHANNEL,
      human,
      currentDecisions: currentDecisions(ctx).map((d) => ({ id: d.id, date: d.date, topic: d.topic, text: d.text })),
      activeConstraints: activeConstraints(ctx).map((c) => c.text),
      budgetChars: 40_000,
    });
    const draft = fake.requests.find((r) => taskOf(r.system) === 'condense');
    await rt.upkeep.tick();
    fake.requests.length = 0;
    const recall = /<recalled_memory>[\s\S]*?<\/recalled_memory>/.exec(chat?.lastUserText ?? '')?.[0].length ?? 0;
    return { chatSystemChars: chat?.system.length ?? 0, chatRecallChars: recall, condensationBytes: draft ? Buffer.byteLength(JSON.stringify(draft.body)) : 0 };
  };
  let chatMessages = 0;
  let threadMessages = 0;
  let condensed = 0;
  const failures = [];
  const results = [];
  const t0 = Date.now();

  for (let day = 0; day < DAYS; day++) {
    const dayStart = START + day * DAY_MS;
    // Before the first turn: yesterday's HISTORY.md block and any idle upkeep.
    now = dayStart - 60_000;
    await rt.upkeep.tick();
    drain(day);
    const spacing = (8 * 3_600_000) / PER_DAY;
    /** @type {any[]} */
    let batch = [];
    const send = async () => {
      if (!batch.length) return;
      batch[batch.length - 1].addressed = true;
      now = batch[batch.length - 1].at.getTime();
      await rt.engine.respond(ref, batch);
      await rt.upkeep.tick();
      drain(day);
      batch = [];
    };
    let batchCap = 1 + Math.floor(world.random() * 6);
    for (let i = 0; i < PER_DAY; i++) {
      const at = new Date(dayStart + i * spacing);
      let m;
      if (i === 20 && day % 3 === 1) {
        m = world.rememberRequest();
        remembered.push({ fact: m.fact, day });
      } else if (i === 30 && day % 7 === 6) {
        const candidates = remembered.filter((r) => r.id === undefined || !forgotten.has(r.id));
        const entries = readMemory();
        const target = candidates.map((r) => ({ r, e: entries.find((e) => !e.superseded && e.text.includes(r.fact)) })).find((x) => x.e);
        if (target) {
          forgotten.add(Buffer.from(target.e.id).toString());
          target.r.id = Buffer.from(target.e.id).toString();
          m = { text: `forget ${target.e.id}`, addressed: true };
        }
      }
      m ??= world.message();
      batch.push({
        id: String(msgId++),
        authorName: world.pick(['Priya', 'Marcus', 'Lena', 'Tomasz', 'Aiko', 'Diego']),
        content: m.text,
        at,
        addressed: false,
      });
      chatMessages++;
      if (m.addressed || batch.length >= batchCap) {
        await send();
        batchCap = 1 + Math.floor(world.random() * 6);
      }
    }
    await send();

    // Evening: a thread is condensed on ~300 of the 365 days, evenly spread.
    if (Math.floor(((day + 1) * CONDENSATIONS) / DAYS) > Math.floor((day * CONDENSATIONS) / DAYS)) {
      const th = world.thread();
      now = dayStart + 8.5 * 3_600_000;
      const messages = th.lines.map((l, i) => ({
        id: String(msgId++),
        authorId: `u-${l.author}`,
        authorName: l.author,
        at: new Date(now - (th.lines.length - i) * 120_000),
        content: l.content,
        isBot: false,
      }));
      threadMessages += messages.length;
      const res = await secretary.condense({ target: { ref, channelName: CHANNEL, threadName: th.name, threadId: th.id, trigger: 'explicit' }, messages });
      if (res.status === 'done') condensed++;
      else failures.push({ day, status: res.status, error: /** @type {any} */ (res).error });
      drain(day);
    }
    // Owners close most action items within a couple of weeks (/actions done).
    await closeSomeActions(rt, actions, ref, world, dayStart);

    // Evening idle: SESSION.md and MEMORY.md catch up.
    now = dayStart + 10 * 3_600_000;
    await rt.upkeep.tick();
    drain(day);
    noteEntries();

    const cp = CHECKPOINTS.find((c) => c.day === day + 1);
    if (cp) {
      const row = await checkpoint({ cp, rt, p, tmp, calls, everSeen, forgotten, readMemory, now: clock(), probe });
      Object.assign(row, { chatMessages, threadMessages, condensed, wallSeconds: Math.round((Date.now() - t0) / 1000) });
      results.push(row);
      process.stderr.write(`  ${cp.label}: ${chatMessages} chat messages, ${condensed} condensations, ${row.wallSeconds} s\n`);
    }
  }
  // For finding what the heap holds: `--heap-snapshot FILE` (open it in Chrome DevTools, Memory tab).
  if (process.argv.includes('--heap-snapshot')) require('node:v8').writeHeapSnapshot(arg('--heap-snapshot', 'lifetime.heapsnapshot'));
  await rt.close();
  await fake.close();
  report(results, failures);
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  const series = daily(calls);
  fs.writeFileSync(outFile, JSON.stringify({ date: new Date().toISOString(), days: DAYS, perDay: PER_DAY, results, failures, series }, null, 2));
  console.log(`\nwritten: ${path.relative(root, outFile)}`);
  if (process.argv.includes('--keep')) console.log(`data kept in ${tmp}`);
  else fs.rmSync(tmp, { recursive: true, force: true });
}

/** Closes open action items older than ten days, four in five of them, as their owner would. */
async function closeSomeActions(rt, actions, ref, world, dayStart) {
  const file = path.join(rt.store.paths(ref).stateDir, 'context.json');
  if (!fs.existsSync(file)) return;
  const ctx = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (const it of ctx.actions ?? []) {
    if (it.status !== 'open' || Date.parse(it.opened) > dayStart - 10 * DAY_MS || world.random() < 0.2) continue;
    const who = it.owner ?? 'admin';
    await actions.command(ref, it.id, { actor: who, name: who, admin: true });
  }
}

const mean = (/** @type {number[]} */ xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const quantile = (/** @type {number[]} */ xs, /** @type {number} */ q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : 0;
};
const sizeOf = (/** @type {string} */ f) => {
  if (!fs.existsSync(f)) return 0;
  const st = fs.statSync(f);
  if (!st.isDirectory()) return st.size;
  return fs.readdirSync(f).reduce((n, x) => n + sizeOf(path.join(f, x)), 0);
};

async function checkpoint({ cp, rt, p, tmp, calls, everSeen, forgotten, readMemory, now, probe }) {
  // Per-call figures over the four weeks before the checkpoint (all of them at 1 week), condensations
  // over the month before (there are about 25).
  const within = (task, days) => calls.filter((c) => c.task === task && c.day >= cp.day - days);
  // Chat calls over whole compaction cycles: the conversation grows for days and is then compacted,
  // so a window that is not a whole number of cycles measures where in the cycle it ended.
  const compactions = calls.map((c, i) => (c.task === 'compact' && c.day >= cp.day - 35 ? i : -1)).filter((i) => i >= 0);
  const cycles = compactions.length - 1;
  const chat = cycles > 0 ? calls.slice(compactions[0], compactions[cycles]).filter((c) => c.task === 'chat') : within('chat', 28);
  const figures = {
    chatCycles: Math.max(0, cycles),
    chatInputTokens: mean(chat.map((c) => c.tokens)),
    chatBytes: mean(chat.map((c) => c.bytes)),
    chatSystemChars: mean(chat.map((c) => c.parts?.system ?? 0)),
    chatRecallChars: mean(chat.map((c) => c.parts?.recall ?? 0)),
    chatConversationChars: mean(chat.map((c) => c.parts?.conversation ?? 0)),
    consolidationBytes: mean(within('consolidate', 28).map((c) => c.bytes)),
    sessionBytes: mean(within('session', 28).map((c) => c.bytes)),
    condensationBytes: mean(within('condense', 30).map((c) => c.bytes)),
    condensationDecisionChars: mean(within('condense', 30).map((c) => c.parts?.decisions ?? 0)),
    condensationConstraintChars: mean(within('condense', 30).map((c) => c.parts?.constraints ?? 0)),
    compactionBytes: mean(within('compact', 30).map((c) => c.bytes)),
  };
  const queries = SUBJECTS.slice(0, 50).map((s, i) => (i % 2 ? `What ${s.noun} does ${s.service} use now?` : `who is on call for ${s.service}?`));
  const ms = [];
  for (let round = 0; round < 4; round++) {
    for (const q of queries) {
      const t = process.hrtime.bigint();
      await rt.recall.recall({ ...recallDirs(p, tmp), query: q, now });
      ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  // After a memory write recall rebuilds its index first: the cost the first message after each
  // upkeep run pays. The write is simulated by touching MEMORY.md (its content is unchanged).
  const afterWrite = [];
  for (const q of queries.slice(0, 20)) {
    const t = new Date(Date.now() + afterWrite.length * 1000 + 1000);
    fs.utimesSync(p.memory, t, t);
    const t0 = process.hrtime.bigint();
    await rt.recall.recall({ ...recallDirs(p, tmp), query: q, now });
    afterWrite.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  if (global.gc) global.gc();
  const mem = process.memoryUsage();
  const entries = readMemory();
  const present = new Set(entries.map((e) => e.id));
  const lost = [...everSeen.keys()].filter((id) => !present.has(id) && !forgotten.has(id));
  const stillThere = [...forgotten].filter((id) => present.has(id));
  const current = entries.filter((e) => !e.superseded);
  const bySubject = new Map();
  // Only the entries consolidation writes: the Secretary's own decision lines are checked through
  // context.json below (it supersedes its own earlier decision, not a chat-made line).
  for (const e of current.filter((x) => /as decided in the channel\.$|this rotation\.$/.test(x.text))) {
    const k = subjectOf(e.text);
    if (k) bySubject.set(k, (bySubject.get(k) ?? 0) + 1);
  }
  const ctx = JSON.parse(fs.readFileSync(path.join(p.stateDir, 'context.json'), 'utf8'));
  const byTopic = new Map();
  for (const d of ctx.decisions.filter((d) => d.kind === 'decision' && !d.supersededBy)) byTopic.set(d.topic, (byTopic.get(d.topic) ?? 0) + 1);
  return {
    checkpoint: cp.label,
    day: cp.day,
    ...figures,
    files: {
      memory: sizeOf(p.memory),
      history: sizeOf(p.history) + sizeOf(p.historyArchive),
      context: sizeOf(path.join(path.dirname(p.memory), 'CONTEXT.md')),
      contextArchive: sizeOf(path.join(path.dirname(p.memory), 'CONTEXT.archive.md')),
      condensations: sizeOf(p.condensations),
      state: sizeOf(p.stateDir),
    },
    probe: await probe(),
    recallMs: { p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), afterWriteP50: quantile(afterWrite, 0.5) },
    rssMB: mem.rss / 1e6,
    heapMB: mem.heapUsed / 1e6,
    memory: {
      entriesEver: everSeen.size,
      current: current.length,
      lost: lost.length,
      forgotten: forgotten.size,
      forgottenStillThere: stillThere.length,
      subjectsWithTwoCurrentEntries: [...bySubject.values()].filter((n) => n > 1).length,
    },
    decisions: {
      total: ctx.decisions.filter((d) => d.kind === 'decision').length,
      current: [...byTopic.values()].reduce((a, b) => a + b, 0),
      topicsWithTwoCurrent: [...byTopic.values()].filter((n) => n > 1).length,
    },
  };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
