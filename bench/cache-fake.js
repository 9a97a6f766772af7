// @ts-check
'use strict';
/**
 * The model side of the cache benchmark: a handler for the fake Anthropic server
 * (test/fakes/model/server.ts) that answers chat turns with short plausible replies and side tasks
 * (SESSION.md refresh, MEMORY.md consolidation, compaction summary) with valid JSON for their
 * schemas (src/upkeep/session.ts, consolidate.ts, compact.ts). Deterministic: the same request
 * always gets the same answer, so runs are comparable.
 */

const { fnv1a: hash } = require('./rng.js');

/** @template T @param {T[]} xs @param {number} h @returns {T} */
const pick = (xs, h) => xs[h % xs.length];

const PEOPLE = ['Priya', 'Marcus', 'Lena', 'Tomasz', 'Aiko', 'Diego'];

/** The speaker and the message, from a stored user turn "[2025-03-12 09:14 UTC] name: Priya: text". */
function splitTurn(/** @type {string} */ turn) {
  const body = turn.replace(/^\[[^\]]*\]\s*[^:]*:\s*/, '');
  const m = /^([A-Z][a-z]+):\s*(.*)$/s.exec(body);
  return m ? { speaker: m[1], text: m[2] } : { speaker: '', text: body };
}

/** Specific words worth echoing back: tickets, PRs, numbers with units, capitalised terms. */
function topics(/** @type {string} */ text) {
  const found = new Set();
  for (const m of text.matchAll(
    /\b(KES-\d+|PR #\d+|#\d{3,}|v\d(?:\.\d)*|\d+(?:\.\d+)?\s?(?:rps|ms|MB|GB|minutes|records|tasks|photos|devices)|Android 1\d|iOS 1\d|A54s?|Zebra(?: TC58)?|Pixel \d\w?|RDS|ECS|Heroku|WorkManager|k6|tus|S3|Grafana|PagerDuty|release\/\d\.\d|sync_v3|sync v3|PDF export|conflict screen)\b/g,
  )) {
    found.add(m[1]);
  }
  return [...found];
}

const OPENERS = [
  'Noted.',
  'Got it.',
  'Makes sense.',
  'Agreed, that fits the plan.',
  'Thanks, adding it to the list.',
  'Good point.',
  'Understood.',
  'Okay, recorded.',
];
const FOLLOWUPS = [
  'That keeps the code freeze on Monday realistic as long as nothing new lands in release/2.4.',
  'It touches the Northfield pilot, so Diego should mention it on the Thursday call with Karen.',
  'If it slips, it is a candidate for 2.4.1 rather than a reason to move the store submission on the 20th.',
  "Worth adding to Aiko's test plan so the go/no-go meeting on the 17th has a clear result for it.",
  'The constraint to keep in mind is the 2-second lock limit for anything that touches the schema.',
  'Remember the pilot runs against production with the flag set per organisation, so a rollback is a flag flip.',
  'The Grafana "Sync v3" dashboard should show the effect within a day of the change.',
  'I would log the outcome in the kestrel-ops repo so on-call has it during the freeze week.',
  'Nothing here conflicts with the key decisions in the channel context.',
  'It does not change the scope list for 2.4; it only changes who verifies it and when.',
];
const QUESTION_ANSWERS = [
  'From the channel context, the owner would be the person listed for that area, and the decision so far is to keep it inside the 2.4 scope only if it is already merged.',
  'My understanding from the notes is that this was decided earlier and still holds; if the situation changed, say so and I will treat the old decision as superseded.',
  'I do not have a definite answer in the channel notes; the quickest way is to check with the owner before the freeze and record the answer here.',
  'The notes point to a conservative answer: keep the current behaviour for 2.4 and schedule the change for the first patch release.',
];

/** A chat reply of roughly 40-120 words that refers to what was said. @param {string} newest */
function chatReply(newest) {
  const { speaker, text } = splitTurn(newest);
  // Hash the words only, not the time stamp or the console user, so runs get the same replies.
  const h = hash(`${speaker}:${text}`);
  const t = topics(text);
  if (/sum up|summar|recap/i.test(text)) {
    return [
      'Here is where 2.4 stands after today:',
      '- Android background sync (Lena): expedited WorkManager jobs pass on the Pixel 7a and A54s; the overnight Zebra TC58 run is a go/no-go criterion.',
      '- Conflict screen PR #1482 (Aiko): approved; merge after the renamed-field test. Newest label shown on both sides, the old one in small text.',
      '- Load test (Marcus): k6 against staging tomorrow 10:00 CET, pushed until it breaks, with Tomasz watching RDS connections.',
      '- Failover test (Tomasz): moved to Saturday 06:00 UTC.',
      '- Release notes (Diego): draft by Friday, Android fix marked "expected"; KES-902 PDF export speed-up goes to 2.4.1.',
      '- Heroku scheduler config exported to kestrel-ops and the cleanup job ported to EventBridge (Tomasz) before the Heroku apps are deleted.',
      '- legacy_status contract migration stays in 2.5.',
    ].join('\n');
  }
  const parts = [];
  const who = speaker || pick(PEOPLE, h);
  parts.push(pick(OPENERS, h >>> 3));
  if (text.includes('?')) parts.push(pick(QUESTION_ANSWERS, h >>> 5));
  if (t.length) {
    parts.push(
      `So for ${t.slice(0, 3).join(', ')}: ${who} ${pick(['is tracking it', 'owns the next step', 'will report back here', 'has the action'], h >>> 7)}, and I have it on the open list for 2.4.`,
    );
  } else {
    parts.push(`I have put this on the open list under ${who}'s name.`);
  }
  const n = 1 + ((h >>> 11) % 3);
  for (let i = 0; i < n; i++) parts.push(FOLLOWUPS[(h >>> (13 + i * 4)) % FOLLOWUPS.length]);
  const uniq = [...new Set(parts)];
  if (uniq.join(' ').split(/\s+/).length < 40) uniq.push(FOLLOWUPS[(h + 3) % FOLLOWUPS.length]);
  return uniq.join(' ');
}

/** The user turns of a side-task input (the transcript lines that are not the bot's). */
function humanLines(/** @type {string} */ input) {
  // Consolidation input tags each message with its id: "(msg 123) [date] name: text".
  return input
    .split(/\n+/)
    .map((l) => l.replace(/^\(msg [^)]*\) /, ''))
    .filter((l) => /^\[\d{4}-\d\d-\d\d /.test(l))
    .map((l) => splitTurn(l));
}

const DECISION = /\b(let's|lets|we'll|decided|agreed|go with|keep .* for|make .* a|goes into|stays in|move (it|the)|from now on|always|never)\b/i;

/** SESSION.md: {goal, current_state, links, open_questions, next_steps, recent_errors}. */
function sessionJson(/** @type {string} */ input) {
  const lines = humanLines(input.slice(input.indexOf('<conversation>')));
  const last = lines.slice(-6);
  const t = [...new Set(last.flatMap((l) => topics(l.text)))];
  return {
    goal: 'Get Kestrel 2.4 through code freeze and store submission with the open blockers resolved.',
    current_state: last.length
      ? `Discussing ${t.slice(0, 4).join(', ') || 'release planning'}; latest: ${last[last.length - 1].speaker || 'someone'} — ${last[last.length - 1].text.slice(0, 160)}`
      : 'No new messages.',
    links: t.filter((x) => /KES-|PR #|release\//.test(x)).slice(0, 4),
    open_questions: last
      .filter((l) => l.text.includes('?'))
      .slice(-2)
      .map((l) => l.text.slice(0, 160)),
    next_steps: last
      .filter((l) => /\b(I'll|I will|will do|tomorrow|by Friday|next)\b/i.test(l.text))
      .slice(-3)
      .map((l) => `${l.speaker}: ${l.text.slice(0, 140)}`),
    recent_errors: [],
  };
}

/** MEMORY.md consolidation: at most two durable additions per batch, from decision-like lines. */
function opsJson(/** @type {string} */ input) {
  const memory = input.slice(0, input.indexOf('</memory_entries>')).toLowerCase();
  const lines = humanLines(input.slice(input.indexOf('<new_messages>')));
  const ops = [];
  for (const l of lines) {
    if (ops.length >= 2) break;
    if (!DECISION.test(l.text) || l.text.length < 40) continue;
    const sentence = (l.text.split(/(?<=[.!?])\s+/).find((s) => DECISION.test(s)) ?? l.text).replace(/\s+/g, ' ').trim();
    const text = `${l.speaker || 'The team'} said: ${sentence}`.slice(0, 280);
    if (memory.includes(sentence.toLowerCase().slice(0, 60))) continue;
    ops.push({ op: 'add', kind: 'decision', text, reason: 'stated as a decision in the channel' });
  }
  return { operations: ops };
}

/** Compaction summary: a bounded merge of the earlier summary and the new turns. */
function summaryJson(/** @type {string} */ input) {
  const earlier = /<earlier_summary>\n([\s\S]*?)\n<\/earlier_summary>/.exec(input)?.[1] ?? '';
  const section = (name) => {
    const m = new RegExp(`## ${name}\\n([\\s\\S]*?)(?=\\n## |$)`).exec(earlier);
    return m
      ? m[1]
          .split('\n')
          .filter((x) => x.startsWith('- ') && x !== '- (none)')
          .map((x) => x.slice(2))
      : [];
  };
  const lines = humanLines(input.slice(input.indexOf('<turns_to_summarize>')));
  const t = [...new Set(lines.flatMap((l) => topics(l.text)))];
  const decisions = lines.filter((l) => DECISION.test(l.text)).map((l) => `${l.speaker}: ${l.text.slice(0, 150)}`);
  const next = lines.filter((l) => /\b(I'll|I will|will do|tomorrow)\b/i.test(l.text)).map((l) => `${l.speaker}: ${l.text.slice(0, 120)}`);
  // A real summariser keeps the summary about the same size however long the channel runs: newest wins.
  const cap = (/** @type {string[]} */ xs, n) => [...new Set(xs)].slice(-n);
  return {
    goal: 'Ship Kestrel 2.4 (resumable sync) on schedule: code freeze, go/no-go, store submission.',
    constraints_preferences: cap([...section('Constraints & Preferences'), 'No schema lock over 2 s in production', 'Personal data stays in the EU region'], 4),
    progress: {
      done: cap(
        [
          ...(/Done:\n([\s\S]*?)\nIn progress:/.exec(earlier)?.[1] ?? '')
            .split('\n')
            .filter((x) => x.startsWith('- ') && x !== '- (none)')
            .map((x) => x.slice(2)),
          ...t.slice(0, 3).map((x) => `${x} discussed and assigned`),
        ],
        6,
      ),
      in_progress: cap(
        t.slice(3, 7).map((x) => `${x}`),
        4,
      ),
      blocked: [],
    },
    key_decisions: cap([...section('Key Decisions'), ...decisions], 6),
    next_steps: cap(next, 4),
    critical_context: cap([...section('Critical Context'), `${lines.length} messages summarised in this pass`], 3),
  };
}

/**
 * The fake server's handler. `chatModel`/`sideModel` tell chat turns from side tasks.
 * @param {{ chatModel: string, sideModel: string }} o
 */
function makeHandler(o) {
  /** @param {{ model: string, system: string, messages: {role: string, text: string}[], lastUserText: string }} req */
  return (req) => {
    if (req.model === o.sideModel) {
      const input = req.lastUserText;
      let value;
      if (/working-state notes \(SESSION\.md\)/.test(req.system)) value = sessionJson(input);
      else if (/durable memory \(MEMORY\.md\)/.test(req.system)) value = opsJson(input);
      else if (/compact the conversation/.test(req.system)) value = summaryJson(input);
      else return { error: { status: 400, message: `cache bench: unknown side task: ${req.system.slice(0, 80)}` } };
      return JSON.stringify(value);
    }
    const newest = req.lastUserText.replace(/^<recalled_memory>[\s\S]*?<\/recalled_memory>\n\n/, '');
    return chatReply(newest);
  };
}

/** Which side task a recorded request was. @param {string} system */
function sideTaskOf(system) {
  if (/working-state notes \(SESSION\.md\)/.test(system)) return 'session';
  if (/durable memory \(MEMORY\.md\)/.test(system)) return 'memory';
  if (/compact the conversation/.test(system)) return 'compact';
  return 'other';
}

module.exports = { makeHandler, chatReply, sideTaskOf, hash };
