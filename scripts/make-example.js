#!/usr/bin/env node
'use strict';
/**
 * Makes the example data root (`examples/`) with the product's own pipeline: a scripted discussion
 * in a console channel goes into its log.jsonl, its "remember that …" / "don't forget that …" lines
 * are applied as the chat engine applies them, and each discussion is condensed by the Secretary
 * (CONTEXT.md, MEMORY.md, HISTORY.md, condensations/, the ledger), and a member confirms one decision
 * as the Confirm button does (ratified; the one it replaced is superseded). The Secretary's model is a
 * scripted one and the clock is fixed, so the output is the same byte for byte on every run.
 *
 *   npm run example            # rebuilds dist/, then writes examples/
 *   node scripts/make-example.js OUT_DIR
 *
 * test/examples.test.ts regenerates it into a temp folder and compares it with examples/.
 */
const fs = require('node:fs');
const path = require('node:path');

const dist = (m) => require(path.join(__dirname, '..', 'dist', m));

const CHANNEL = 'orders-team';

/** The scripted discussions: [minutes after the discussion's start, author, text]. */
const DISCUSSIONS = [
  {
    start: '2026-11-02T09:00:00Z',
    topic: 'orders database',
    messages: [
      [0, 'al', 'which database should the orders service use?'],
      [3, 'bea', 'constraint: order writes must stay under 50 ms at p99'],
      [6, 'cy', 'we already run MySQL for billing, the team knows it'],
      [9, 'al', 'decision: the orders service stores its data in MySQL 8 on db-1'],
      [11, 'bea', 'todo: bea: set up nightly backups of db-1 by 2026-11-09'],
      [14, 'al', 'remember that the VPN is required for staging'],
    ],
  },
  {
    start: '2026-11-16T14:00:00Z',
    topic: 'orders database',
    // bea clicks Confirm on the pinned post 20 minutes after the condensation: the decision is ratified.
    confirmedBy: [20, 'bea'],
    messages: [
      [0, 'cy', 'the MySQL JSON columns keep biting us in the orders service'],
      [4, 'bea', 'Postgres 16 has jsonb and the same p99 on our load test'],
      [6, 'bea', 'constraint: order writes must stay under 50 ms at p99'],
      [8, 'al', 'decision: the orders database moves to Postgres 16, replacing MySQL'],
      [10, 'cy', 'todo: cy: migrate the orders tables due 2026-12-01'],
      [12, 'bea', "don't forget that the nightly backup job runs at 02:00 UTC"],
    ],
  },
  {
    start: '2026-11-23T10:00:00Z',
    topic: 'release process',
    messages: [
      [0, 'bea', 'how do we ship the orders service from now on?'],
      [5, 'al', 'decision: releases go out from the release branch on Tuesdays'],
      [7, 'cy', 'todo: al: write the release checklist'],
      [9, 'bea', 'remember that Priya owns the release notes'],
      [10, 'al', 'playbook: Cut a release: freeze the release branch on Monday; run the release checklist; tag and deploy on Tuesday'],
      [11, 'bea', 'question: who approves a hotfix release?'],
    ],
  },
  {
    // No decision: the discussion answers the open question, changes the procedure (the playbook
    // keeps its earlier steps, struck through) and leaves another question open.
    start: '2026-11-30T10:00:00Z',
    topic: 'release process',
    messages: [
      [0, 'cy', 'the hotfix question came up again on Friday'],
      [3, 'al', 'answer: hotfix release => the on-call lead approves hotfix releases'],
      [6, 'bea', 'playbook: Cut a release: freeze the release branch on Monday; run the release checklist; write the release notes; tag and deploy on Tuesday'],
      [8, 'cy', 'question: do we announce releases in the customer newsletter?'],
    ],
  },
];

/**
 * The Secretary's model, scripted: it reads the transcript it is shown the way a careful model
 * would. `decision: X` is the decision, `constraint: X` a constraint, `todo: X` an action item,
 * `question: X` a question left open, `answer: WORDS => X` answers the open question it is shown
 * that has WORDS, `playbook: NAME: step; step` a procedure; a decision "replacing W" supersedes the
 * current decisions that mention W.
 */
function scriptedModel() {
  const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  const answer = (system, input) => {
    if (/summarize one part/.test(system)) return { summary: input };
    const said = (label) => [...input.matchAll(new RegExp(`^\\[[^\\]]+\\] [^:]+: ${label}: (.*)$`, 'gim'))].map((m) => m[1]);
    const saidBy = (label) => [...input.matchAll(new RegExp(`^\\[[^\\]]+\\] ([^:]+): ${label}: (.*)$`, 'gim'))].map((m) => ({ who: m[1], text: m[2] }));
    const decision = said('decision').pop() ?? 'none';
    const open = [...input.matchAll(/^- (q-[0-9a-f]{6}) \[[^\]]+\] (.*)$/gm)].map((m) => ({ id: m[1], text: m[2] }));
    const answered = said('answer').flatMap((t) => {
      const [words, answer] = t.split(' => ');
      const q = open.find((x) => x.text.includes(words));
      return q ? [{ id: q.id, answer }] : [];
    });
    const playbooks = said('playbook').map((t) => ({
      name: t.slice(0, t.indexOf(':')),
      steps: t
        .slice(t.indexOf(':') + 1)
        .split(';')
        .map((x) => x.trim()),
    }));
    const replaced = /replacing (\w+)/i.exec(decision)?.[1];
    const current = [...input.matchAll(/^- (d-[0-9a-f]{10}) \[[^\]]+\] ([^:]+): (.*)$/gm)].map((m) => ({ id: m[1], text: m[3] }));
    const about = `${decision} ${playbooks.map((p) => p.name).join(' ')}`;
    const topic = /database|MySQL|Postgres/.test(about) ? 'Orders database' : /release/i.test(about) ? 'Release process' : 'Open discussion';
    return {
      topic,
      context: replaced ? `The team revisited the ${replaced} choice after problems in production.` : 'The team discussed the options.',
      decision,
      rationale: replaced
        ? `It removes the problems ${replaced} caused and keeps the latency target.`
        : 'It was the simplest option that meets the constraints.',
      action_items: said('todo'),
      supersedes: replaced ? current.filter((c) => c.text.includes(replaced)).map((c) => c.id) : [],
      constraints: said('constraint'),
      current_state: decision === 'none' ? '' : `Going with: ${decision}`,
      open_questions: saidBy('question').map((q) => `${q.who}: ${q.text}`),
      answered_questions: answered,
      playbooks,
    };
  };
  return {
    provider: 'anthropic',
    models: { chat: 'scripted-chat', side: 'scripted-side' },
    async complete(req) {
      const system = req.system.map((b) => b.text).join('\n');
      const input = req.messages.map((m) => (typeof m.content === 'string' ? m.content : m.content.map((c) => c.text ?? '').join(''))).join('\n');
      return { text: JSON.stringify(answer(system, input)), stopReason: 'end', usage, model: 'scripted-side', provider: 'anthropic' };
    },
    async close() {},
  };
}

async function makeExample(outDir) {
  const { ChannelStore } = dist('memory/store.js');
  const { Secretary } = dist('condense/saga/secretary.js');
  const { explicitMemoryRequest } = dist('chat/explicitRequests.js');
  const { silentLogger } = dist('log/logger.js');

  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  let now = new Date(DISCUSSIONS[0].start);
  const clock = () => new Date(now);
  const logger = silentLogger();
  // Entry ids from a fixed sequence instead of random bytes: the same files on every run.
  let nextId = 0xe0a000;
  const store = new ChannelStore({ root: outDir, clock, logger, entryIds: () => (++nextId).toString(16) });
  const ref = { kind: 'local', name: CHANNEL };
  const p = store.paths(ref);
  await store.ensureChannel(ref);
  const secretary = new Secretary({ deps: { model: scriptedModel(), store, logger, clock } });
  const { confirmInChannel } = dist('condense/knowledge/ratifyFiles.js');

  let seq = 0;
  for (const d of DISCUSSIONS) {
    const start = Date.parse(d.start);
    const messages = [];
    for (const [minutes, author, content] of d.messages) {
      now = new Date(start + minutes * 60_000);
      const id = `console-${now.getTime()}-${++seq}`;
      // As console mode logs a person's line (both sides go to log.jsonl; this script plays only people).
      await store.appendJsonl(p.log, { type: 'message', id, author: { id: author, name: author }, at: now.toISOString(), content });
      messages.push({ id, authorId: author, authorName: author, at: new Date(now), content, isBot: false });
      // "remember that …" is applied at once, as the chat engine does.
      const memory = (await store.read(ref, 'MEMORY.md')) ?? '';
      const request = explicitMemoryRequest(content, memory, `${author}, msg ${id}`);
      if (request.ops.length) await store.applyMemoryOps(ref, request.ops);
    }
    now = new Date(now.getTime() + 5 * 60_000);
    const result = await secretary.condense({ target: { ref, channelName: CHANNEL, trigger: 'explicit', topicHint: d.topic }, messages });
    if (result.status !== 'done') throw new Error(`condensation of the discussion of ${d.start} ended "${result.status}": ${result.error ?? ''}`);
    if (d.confirmedBy) {
      // As the Confirm button does it (a console person's id is their name).
      const [minutes, who] = d.confirmedBy;
      now = new Date(now.getTime() + minutes * 60_000);
      const click = { decisionId: result.decisionId, member: { id: who, name: who }, at: clock(), settings: { minConfirmations: 1 } };
      const r = await confirmInChannel(store, ref, click);
      if (!r.ok) throw new Error(`${who}'s Confirm of ${result.decisionId} was refused: ${r.why}`);
    }
  }
  await store.idle();
  // Runtime state a reader of the example has no use for, and that no run writes the same way twice.
  fs.rmSync(path.join(p.stateDir, 'backups'), { recursive: true, force: true });
}

module.exports = { makeExample };

if (require.main === module) {
  const out = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'examples'));
  makeExample(out).then(
    () => process.stdout.write(`example data root written to ${out}\n`),
    (err) => {
      process.stderr.write(`make-example: ${err && err.stack ? err.stack : err}\n`);
      process.exitCode = 1;
    },
  );
}
