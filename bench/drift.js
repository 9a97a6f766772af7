#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * What drift notes cost, and how precise they are, through the bot's own checker
 * (src/condense/observers/driftChecker.ts: the rule in code, the one side-task call, the once-a-day record)
 * against the fake model server, in a console channel whose context.json holds the 20 decisions of
 * bench/data/drift/labelled.json, on a simulated clock (100 messages a day).
 *
 * 1. Cost: side calls and input tokens (characters / 4, the fakes' rule, instructions included) per
 *    1,000 messages of everyday chat (bench/data/abstention/chat-lines.txt, shuffled with a fixed
 *    seed), and per 1,000 messages of that channel's ordinary talk (7 in 10 everyday lines, 3 in 10
 *    the labelled project messages that agree with a decision or are about something else, drawn
 *    with a fixed seed). A contradiction costs one call more each.
 * 2. Precision: each labelled message alone (a fresh day each), judged by a scripted model. "good"
 *    answers as a good model would, from the label: the decision a contradicting message goes
 *    against when it was shown that decision, otherwise null. "yes" names the first decision it
 *    was shown, every time: what the rule in code alone would say.
 *
 * Usage: node bench/drift.js [--messages 1000]   (no build needed: TypeScript sources are loaded directly)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
require('../test/helpers/register-ts.js');
const { startFakeModelServer } = require('../test/fakes/model/server.ts');
const { createModelClient } = require('../src/llm/provider.ts');
const { ChannelStore } = require('../src/memory/store.ts');
const { silentLogger } = require('../src/log/logger.ts');
const { DriftChecker } = require('../src/condense/observers/driftChecker.ts');
const { rng } = require('./rng');
const { arg } = require('./args.js');

const N = Number(arg('--messages', '1000'));
const PER_DAY = 100;
const DAY_MS = 86_400_000;
const data = JSON.parse(fs.readFileSync(path.join(__dirname, 'data', 'drift', 'labelled.json'), 'utf8'));
const chat = fs
  .readFileSync(path.join(__dirname, 'data', 'abstention', 'chat-lines.txt'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
/** @type {{ id: string, kind: 'decision', topic: string, text: string, date: string, file: string, ledgerKey: string }[]} */
const decisions = data.decisions.map((/** @type {{topic: string, text: string}} */ d, /** @type {number} */ i) => ({
  id: `d-${String(i).padStart(10, '0')}`,
  kind: 'decision',
  topic: d.topic,
  text: d.text,
  date: '2026-10-01',
  file: `2026-10-01-decision-${i}.md`,
  ledgerKey: `${String(i).padStart(10, '0')}${'0'.repeat(54)}`,
}));
/** @type {Map<string, {label: string, decision?: number}>} */
const labelOf = new Map(data.messages.map((/** @type {{text: string, label: string, decision?: number}} */ m) => [m.text, m]));

/** @param {'good' | 'yes'} mode */
function handler(mode) {
  return (/** @type {{ messages: { text: string }[] }} */ req) => {
    const input = req.messages[0].text;
    const message = (/<message>\n[^:]*: ([\s\S]*?)\n<\/message>/.exec(input) ?? [])[1] ?? '';
    const shown = [...input.matchAll(/^- (d-\d{10}) /gm)].map((m) => m[1]);
    let id = null;
    if (mode === 'yes') id = shown[0] ?? null;
    else {
      const l = labelOf.get(message);
      const want = l && l.label === 'contradicts' ? decisions[/** @type {number} */ (l.decision)].id : null;
      id = want && shown.includes(want) ? want : null;
    }
    return JSON.stringify({ contradicts: id, why: id ? 'another choice for the same thing' : '' });
  };
}

async function world(/** @type {'good' | 'yes'} */ mode) {
  const fake = await startFakeModelServer({ handler: handler(mode) });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-drift-'));
  let now = Date.parse('2026-11-02T09:00:00Z');
  const clock = () => new Date(now);
  const logger = silentLogger();
  const store = new ChannelStore({ root: tmp, clock, logger });
  const ref = { kind: 'local', name: 'bench' };
  const p = await store.ensureChannel(ref);
  fs.writeFileSync(p.contextData, JSON.stringify({ version: 1, decisions, constraints: [] }));
  const model = await createModelClient({
    logger,
    env: { ANTHROPIC_API_KEY: 'bench-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL },
    limits: { requestsPerMinute: 'unlimited' },
    retry: { maxAttempts: 1 },
  });
  const checker = new DriftChecker({ deps: { model, store, logger, clock } });
  return {
    fake,
    /** @param {string} text */
    check: (text) => checker.check(ref, { authorName: 'al', content: text }),
    nextDay: () => {
      now += DAY_MS;
    },
    tokens: () => fake.requests.reduce((a, /** @type {any} */ r) => a + (r.usage ? r.usage.inputTokens : 0), 0),
    async close() {
      await model.close();
      await fake.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** @param {string[]} stream */
async function cost(stream) {
  const w = await world('good');
  let lines = 0;
  for (let i = 0; i < stream.length; i++) {
    if (i > 0 && i % PER_DAY === 0) w.nextDay();
    if (await w.check(stream[i])) lines++;
  }
  const r = { calls: w.fake.requests.length, tokens: w.tokens(), lines };
  await w.close();
  return r;
}

/** @param {'good' | 'yes'} mode */
async function precision(mode) {
  const w = await world(mode);
  /** @type {Record<string, {n: number, calls: number, lines: number, right: number}>} */
  const by = {};
  /** @type {string[]} */
  const notes = [];
  for (const m of data.messages) {
    const row = (by[m.label] ??= { n: 0, calls: 0, lines: 0, right: 0 });
    const before = w.fake.requests.length;
    w.nextDay();
    const f = await w.check(m.text);
    row.n++;
    row.calls += w.fake.requests.length - before;
    if (f) {
      row.lines++;
      if (m.label === 'contradicts' && f.decision.id === decisions[m.decision].id) row.right++;
    }
    if (m.label === 'contradicts' && !(f && f.decision.id === decisions[m.decision].id))
      notes.push(`missed: "${m.text}"${f ? ` (cited "${f.decision.text}")` : ''}`);
    if (m.label !== 'contradicts' && f) notes.push(`wrong line: "${m.text}" (cited "${f.decision.text}")`);
  }
  await w.close();
  return { by, notes };
}

async function main() {
  const r = rng(11);
  const everyday = Array.from({ length: N }, () => chat[Math.floor(r() * chat.length)]);
  const r2 = rng(13);
  const ordinary = data.messages.filter((/** @type {{label: string}} */ m) => m.label !== 'contradicts');
  const project = Array.from({ length: N }, () => (r2() < 0.3 ? ordinary[Math.floor(r2() * ordinary.length)].text : chat[Math.floor(r2() * chat.length)]));
  const a = await cost(everyday);
  const b = await cost(project);
  const per = (/** @type {number} */ x) => ((x * 1000) / N).toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
  console.log(
    `# drift notes, ${new Date().toISOString().slice(0, 10)}: ${N} messages a stream, ${PER_DAY} a day, one channel with ${decisions.length} decisions in force`,
  );
  console.log('| stream | side calls per 1,000 messages | input tokens per 1,000 messages | drift lines per 1,000 messages |\n|---|---:|---:|---:|');
  console.log(`| everyday chat | ${per(a.calls)} | ${per(a.tokens)} | ${per(a.lines)} |`);
  console.log(`| the channel's ordinary talk (3 in 10 project messages) | ${per(b.calls)} | ${per(b.tokens)} | ${per(b.lines)} |`);
  for (const mode of /** @type {const} */ (['good', 'yes'])) {
    const { by, notes } = await precision(mode);
    const lines = Object.values(by).reduce((s, x) => s + x.lines, 0);
    const right = by.contradicts.right;
    console.log(`\n## labelled set, scripted model "${mode}"`);
    console.log('| label | messages | side calls | drift lines | lines citing the labelled decision |\n|---|---:|---:|---:|---:|');
    for (const [label, x] of Object.entries(by)) console.log(`| ${label} | ${x.n} | ${x.calls} | ${x.lines} | ${label === 'contradicts' ? x.right : '—'} |`);
    for (const n of notes) console.log(`- ${n}`);
    console.log(
      `precision ${lines ? (right / lines).toFixed(2) : '—'} (${right} of ${lines} lines right); recall ${(right / by.contradicts.n).toFixed(2)} (${right} of ${by.contradicts.n} contradictions)`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
