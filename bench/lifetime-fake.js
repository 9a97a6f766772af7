// @ts-check
'use strict';
/**
 * The model side of the lifetime benchmark: a handler for the fake Anthropic server
 * (test/fakes/model/server.ts) that behaves like a careful model on the simulated channel of
 * bench/lifetime-world.js. It answers chat turns with short replies and side tasks with valid JSON:
 *
 *   - consolidation adds the decisions and on-call facts stated in the new messages, and
 *     supersedes every entry on the same subject among those it was shown (it cannot supersede
 *     what it was not shown: that is what the bench measures);
 *   - the Secretary's draft names the agreement, an action item, sometimes a constraint, and
 *     supersedes the current decision on the same subject when it is in the list it was shown;
 *   - SESSION.md and compaction summaries stay about the same size, as a real model's do.
 *
 * Every request's size is recorded by the caller from the server's log; this handler only answers.
 */
const { FORMS, SUBJECTS } = require('./lifetime-world.js');

const { fnv1a: hash } = require('./rng.js');

const section = (/** @type {string} */ input, /** @type {string} */ tag) => new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(input)?.[1] ?? '';

/** Which subject a text is about, as a key ("payments-api request timeout" or "on call: payments-api"). */
function subjectOf(/** @type {string} */ text) {
  const oncall = /on call for (\S+?)(?: this rotation)?[.,]/.exec(text);
  if (oncall) return `on call: ${oncall[1]}`;
  for (const s of SUBJECTS) if (text.includes(s.title)) return s.title;
  return undefined;
}

/** MEMORY.md consolidation: adds what was stated; supersedes the shown entry on the same subject. */
function consolidate(/** @type {string} */ input) {
  const shown = section(input, 'memory_entries')
    .split('\n')
    .map((l) => /^(m-[a-z0-9]+|\(no id yet\)): (.*)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => ({ id: /** @type {RegExpExecArray} */ (m)[1], text: /** @type {RegExpExecArray} */ (m)[2] }));
  /** @type {Map<string, string[]>} */
  const bySubject = new Map();
  for (const e of shown) {
    const k = subjectOf(e.text);
    if (k && e.id.startsWith('m-')) bySubject.set(k, [...(bySubject.get(k) ?? []), e.id]);
  }
  /** The last statement per subject wins: two decisions in one batch give one entry. */
  const latest = new Map();
  for (const line of section(input, 'new_messages').split('\n')) {
    const msg = /\(msg ([^)]+)\)/.exec(line)?.[1];
    const d = FORMS.decisionRe.exec(line);
    const f = FORMS.factRe.exec(line);
    let text;
    if (d) text = `The ${d[2]} ${d[3]} is ${d[1]}, as decided in the channel.`;
    else if (f) text = `${f[1]} is on call for ${f[2]} this rotation.`;
    else continue;
    latest.set(subjectOf(text) ?? text, { kind: d ? 'decision' : 'fact', text, msg });
  }
  const ops = [];
  if (process.env.LIFETIME_DIAGNOSE_MEMORY) {
    const fs = require('fs');
    const mem = fs
      .readFileSync(process.env.LIFETIME_DIAGNOSE_MEMORY, 'utf8')
      .split('\n')
      .filter((l) => /^- \[m-/.test(l) && !l.includes('~~'));
    const shownIds = new Set(shown.map((e) => e.id));
    const nmsg = section(input, 'new_messages')
      .split('\n')
      .filter((l) => /\(msg /.test(l)).length;
    for (const [k] of latest) {
      const cur = mem.filter((l) => /as decided in the channel\.|this rotation\./.test(l) && subjectOf(l.replace(/^- \[[^\]]+\] /, '')) === k);
      const missed = cur.filter((l) => !shownIds.has(/\[(m-[a-z0-9]+)\]/.exec(l)[1]));
      if (missed.length)
        console.error(
          `not shown: ${missed.length} of ${cur.length} current statements of "${k}" in a batch of ${nmsg} msgs, ${latest.size} subjects, shown ${shown.length}`,
        );
    }
  }
  for (const [k, { kind, text, msg }] of latest) {
    // Every shown statement of the subject is replaced (a careful model leaves none current).
    const old = bySubject.get(k) ?? [];
    if (!old.length) ops.push({ op: 'add', kind, text, reason: 'stated in the channel', source_message: msg });
    for (const id of old) ops.push({ op: 'supersede', id, kind, text, reason: 'replaces the earlier entry on the same subject', source_message: msg });
  }
  return { operations: ops.slice(0, 12) };
}

/** The Secretary's draft: the agreement, and the current decision on the same subject it replaces. */
function condense(/** @type {string} */ input) {
  const a = FORMS.agreementRe.exec(input);
  if (!a) return { topic: 'Discussion', decision: 'none', rationale: '', action_items: [], supersedes: [], constraints: [], current_state: '' };
  const [, value, service, noun] = a;
  const title = `${service} ${noun}`;
  const listed = input.slice(input.indexOf('Current key decisions'), input.indexOf('Active constraints:'));
  const supersedes = [...listed.matchAll(/^- (d-[0-9a-f]+) \[[^\]]*\] ([^:]+):/gm)].filter((m) => m[2] === title).map((m) => m[1]);
  const h = hash(input);
  return {
    topic: title,
    context: `The team compared options for the ${title}.`,
    decision: `Use ${value} for the ${title}.`,
    rationale: `${value} fits the load and the on-call budget of ${service} best among the options discussed.`,
    action_items: [`${['Priya', 'Marcus', 'Lena', 'Tomasz'][h % 4]}: roll out ${value} to ${service} by Friday`],
    supersedes,
    constraints: h % 4 === 0 ? [`Changes to the ${title} need a load test first`] : [],
    current_state: `${service} runs with ${value} for its ${noun}; rollout in progress.`,
  };
}

function session(/** @type {string} */ input) {
  const conv = input.slice(input.lastIndexOf('<conversation>'));
  const topics = [...new Set([...conv.matchAll(/\b([a-z]+-(?:api|service|worker|gateway|proxy|sync|builder|index|relay))\b/g)].map((m) => m[1]))].slice(-4);
  return {
    goal: 'Keep the platform services healthy and record what the team decides.',
    current_state: `Recent talk is about ${topics.join(', ') || 'day-to-day work'}.`,
    links: [],
    open_questions: [],
    next_steps: topics.slice(0, 2).map((t) => `Follow up on ${t}`),
    recent_errors: [],
  };
}

function summary(/** @type {string} */ input) {
  const h = hash(input);
  return {
    goal: 'Keep the platform services healthy and record what the team decides.',
    constraints_preferences: ['Deploys only inside the agreed deploy windows'],
    progress: { done: [`Batch ${h % 1000} of discussions reviewed`], in_progress: ['Rollouts agreed in recent threads'], blocked: [] },
    key_decisions: ['See CONTEXT.md for decisions in force'],
    next_steps: ['Follow the open action items'],
    critical_context: ['The channel is busy; the summary keeps only what the next turns need'],
  };
}

function chatReply(/** @type {string} */ text) {
  const h = hash(text);
  const openers = ['Noted.', 'Got it.', 'Makes sense.', 'Understood.', 'Thanks for the update.'];
  const bodies = [
    'From the channel notes, that follows the decision in force; if it changed, say so and I will record the new one.',
    'I do not see a later decision on that in the notes, so the last recorded one still holds.',
    'The open action items for it are on the list; the owner will report back here.',
    'That matches what was agreed in the last thread on it, and the rollout is tracked.',
  ];
  return `${openers[h % openers.length]} ${bodies[(h >>> 4) % bodies.length]} ${bodies[(h >>> 8) % bodies.length]}`;
}

/**
 * @param {{ chatModel: string, sideModel: string }} o
 * @returns {(req: { model: string, system: string, lastUserText: string }) => any}
 */
function makeLifetimeHandler(o) {
  return (req) => {
    if (req.model !== o.sideModel) return chatReply(req.lastUserText.slice(-400));
    const input = req.lastUserText;
    if (/durable memory \(MEMORY\.md\)/.test(req.system)) return JSON.stringify(consolidate(input));
    if (/working-state notes \(SESSION\.md\)/.test(req.system)) return JSON.stringify(session(input));
    if (/compact the conversation/.test(req.system)) return JSON.stringify(summary(input));
    if (/Secretary of a team's chat channel/.test(req.system)) return JSON.stringify(condense(input));
    if (/summarize one part of a long team discussion/.test(req.system)) return JSON.stringify({ summary: input.slice(0, 400) });
    return { error: { status: 400, message: `lifetime bench: unknown side task: ${req.system.slice(0, 80)}` } };
  };
}

/** Which side task a recorded request was. @param {string} system */
function taskOf(system) {
  if (/durable memory \(MEMORY\.md\)/.test(system)) return 'consolidate';
  if (/working-state notes \(SESSION\.md\)/.test(system)) return 'session';
  if (/compact the conversation/.test(system)) return 'compact';
  if (/Secretary of a team's chat channel/.test(system)) return 'condense';
  if (/summarize one part/.test(system)) return 'condense-chunk';
  return 'other';
}

module.exports = { makeLifetimeHandler, taskOf, subjectOf };
