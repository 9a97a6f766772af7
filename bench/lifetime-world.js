// @ts-check
'use strict';
/**
 * The simulated channel of the lifetime benchmark (bench/lifetime.js): one busy project channel
 * over a year. Deterministic (seeded), so runs are comparable.
 *
 * The world has 60 subjects (10 services × 6 properties, e.g. "payments-api request timeout"),
 * each with a handful of possible values. People chat about them, ask about them, state
 * decisions ("Let's go with 5 s for the payments-api request timeout from now on."), share facts
 * ("FYI: Lena is on call for search-api this rotation."), ask the bot to remember things, and
 * now and then to forget one. Some evenings a thread about one subject ends in an agreement and
 * is condensed by the Secretary; a new agreement on a subject that already has a decision
 * replaces it, which is how supersessions happen.
 */
const { rng } = require('./rng.js');

const PEOPLE = ['Priya', 'Marcus', 'Lena', 'Tomasz', 'Aiko', 'Diego', 'Sam', 'Noor'];
const SERVICES = [
  'payments-api',
  'search-api',
  'auth-service',
  'billing-worker',
  'notif-gateway',
  'media-proxy',
  'ledger-sync',
  'report-builder',
  'geo-index',
  'inbox-relay',
];
const PROPS = [
  { noun: 'request timeout', values: ['2 s', '5 s', '8 s', '15 s', '30 s'] },
  { noun: 'replica count', values: ['2 replicas', '3 replicas', '4 replicas', '6 replicas', '8 replicas'] },
  { noun: 'database', values: ['Postgres 15', 'Postgres 16', 'MySQL 8', 'CockroachDB', 'SQLite'] },
  { noun: 'job queue', values: ['SQS', 'RabbitMQ', 'Redis streams', 'Kafka', 'NATS'] },
  { noun: 'deploy window', values: ['Tuesday 10:00 UTC', 'Wednesday 14:00 UTC', 'Thursday 09:00 UTC', 'Monday 16:00 UTC'] },
  { noun: 'log retention', values: ['7 days', '14 days', '30 days', '90 days', '180 days'] },
];

/** @typedef {{ service: string, noun: string, values: string[], title: string }} Subject */
/** @type {Subject[]} */
const SUBJECTS = SERVICES.flatMap((service) => PROPS.map((p) => ({ service, noun: p.noun, values: p.values, title: `${service} ${p.noun}` })));

/** The sentence forms the fake model recognises (bench/lifetime-fake.js parses these back). */
const FORMS = {
  decision: (/** @type {Subject} */ s, /** @type {string} */ v) => `Let's go with ${v} for the ${s.title} from now on.`,
  decisionRe: /Let's go with (.+?) for the (\S+) (.+?) from now on\./,
  fact: (/** @type {string} */ who, /** @type {string} */ service) => `FYI: ${who} is on call for ${service} this rotation.`,
  factRe: /FYI: (\w+) is on call for (\S+) this rotation\./,
  agreement: (/** @type {Subject} */ s, /** @type {string} */ v) => `Agreed: ${v} for the ${s.title}.`,
  agreementRe: /Agreed: (.+?) for the (\S+) (.+?)\.$/m,
};

const CHATTER = [
  (s) => `I'm looking at the ${s.title} today, will report back.`,
  (s) => `Anyone else seeing slow builds on ${s.service}?`,
  (s) => `PR for ${s.service} is up, could someone review before lunch?`,
  (s) => `${s.service} dashboards look fine this morning.`,
  () => 'Morning all.',
  () => 'Standup in five minutes.',
  (s) => `The flaky test in ${s.service} failed again on main.`,
  (s) => `Pairing with someone on ${s.service} after lunch if anyone is free.`,
  () => 'Thanks, that helps.',
  (s) => `Release notes for ${s.service} are drafted.`,
];
const QUESTIONS = [
  (s) => `What ${s.noun} does ${s.service} use now?`,
  (s) => `Do we still run ${s.service} with the old ${s.noun}?`,
  (s) => `Who decided the ${s.title}, and when?`,
  (s) => `Can you remind me what we settled for the ${s.title}?`,
];

/**
 * @param {{ days: number, messagesPerDay: number, condensations: number, seed?: number }} o
 */
function createWorld(o) {
  const r = rng(o.seed ?? 20261124);
  const pick = (/** @type {any[]} */ xs) => xs[Math.floor(r() * xs.length)];
  let rememberCount = 0;
  let threadCount = 0;
  /** Per subject, the value of the decision in force (condensations and chat decisions both set it). */
  /** @type {Map<string, string>} */
  const inForce = new Map();

  /** One message of the day's chat: its text and whether it must be addressed to the bot. */
  function message() {
    const s = pick(SUBJECTS);
    const x = r();
    if (x < 0.06) {
      const v = pick(s.values.filter((/** @type {string} */ v) => v !== inForce.get(s.title)));
      inForce.set(s.title, v);
      return { text: FORMS.decision(s, v), kind: 'decision' };
    }
    if (x < 0.12) return { text: FORMS.fact(pick(PEOPLE), s.service), kind: 'fact' };
    if (x < 0.32) return { text: pick(QUESTIONS)(s), kind: 'question', addressed: true };
    return { text: pick(CHATTER)(s), kind: 'chatter' };
  }

  /** A fact worth remembering that only this channel knows. */
  function rememberRequest() {
    rememberCount++;
    const s = pick(SUBJECTS);
    const text = `the ${s.service} runbook ${rememberCount} lives in wiki page RB-${1000 + rememberCount}`;
    return { text: `remember that ${text}`, fact: text, kind: 'remember', addressed: true };
  }

  /**
   * A thread about one subject that ends in an agreement: half the time about a subject that
   * already has a decision (its condensation then supersedes that one).
   */
  function thread() {
    threadCount++;
    const decided = SUBJECTS.filter((s) => inForce.has(s.title));
    const s = decided.length && r() < 0.5 ? pick(decided) : pick(SUBJECTS);
    const previous = inForce.get(s.title);
    const v = pick(s.values.filter((/** @type {string} */ v) => v !== previous));
    inForce.set(s.title, v);
    const n = 8 + Math.floor(r() * 7);
    const lines = [];
    for (let i = 0; i < n - 1; i++) {
      const who = PEOPLE[(threadCount + i) % PEOPLE.length];
      const option = pick(s.values);
      lines.push({
        author: who,
        content: pick([
          `For the ${s.title} I'd consider ${option}.`,
          `${option} worries me for ${s.service}: we saw trouble with it last quarter.`,
          `Load tests with ${option} on ${s.service} looked acceptable.`,
          `What does ${option} mean for the on-call load of ${s.service}?`,
          `Whatever we pick for the ${s.title}, it needs a note in the runbook.`,
        ]),
      });
    }
    lines.push({ author: PEOPLE[threadCount % PEOPLE.length], content: FORMS.agreement(s, v) });
    return { subject: s, value: v, previous, lines, name: `${s.title} (${threadCount})`, id: String(900000 + threadCount) };
  }

  return { message, rememberRequest, thread, random: r, pick, inForce };
}

module.exports = { createWorld, SUBJECTS, PEOPLE, FORMS };
