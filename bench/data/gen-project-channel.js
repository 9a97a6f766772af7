#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Generates a project-like channel folder (a fictional software team's memory) for the abstention
 * and speed benchmarks, deterministically from a seed:
 *   SESSION.md, MEMORY.md (bot-written entries with ids and provenance, a few superseded), HISTORY.md
 *   (weekly paragraphs), CONTEXT.md (not a recall candidate), condensations/*.md, and
 *   questions.jsonl: on-topic questions, each naming the MEMORY.md entry it was generated from.
 *
 * Usage: node bench/data/gen-project-channel.js OUT_DIR [--facts N] [--seed S]
 *   --facts 300 (default) gives ~60 KB; --facts 5000 gives ~1 MB of MEMORY.md + HISTORY.md.
 * Also usable as a module: require('./gen-project-channel').generate(outDir, {facts, seed}).
 */
const fs = require('node:fs');
const path = require('node:path');

const { rng } = require('../rng');

const COMPONENTS = ['auth service', 'billing API', 'search indexer', 'mobile app', 'web dashboard', 'CI pipeline',
  'data warehouse', 'notification worker', 'payments gateway', 'image resizer', 'admin console', 'feature-flag service',
  'audit log', 'export job', 'GraphQL gateway', 'rate limiter', 'session store', 'email renderer', 'webhook relay',
  'onboarding flow', 'reporting cron', 'metrics exporter', 'schema registry', 'CDN config', 'load balancer'];
const TECH = ['Postgres', 'Redis', 'Kafka', 'Kubernetes', 'Terraform', 'React', 'Go', 'gRPC', 'Rust', 'ClickHouse',
  'Elasticsearch', 'SQLite', 'RabbitMQ', 'Nginx', 'Envoy', 'Prometheus', 'Grafana', 'Sentry', 'Vite', 'pnpm',
  'Node 20', 'Python 3.12', 'S3', 'DynamoDB', 'Cloudflare Workers', 'Temporal', 'OpenTelemetry', 'Helm'];
const PEOPLE = ['Priya', 'Marcus', 'Lena', 'Tomasz', 'Aiko', 'Diego', 'Fatima', 'Oskar', 'Mei', 'Jonah', 'Ines', 'Ravi'];
const REASONS = ['p99 latency doubled under load', 'the licence changed', 'on-call pages were too noisy',
  'migrations kept locking tables', 'the vendor raised prices', 'cold starts exceeded the SLO',
  'the old client leaked connections', 'we needed row-level security', 'build times passed twenty minutes',
  'memory usage grew without bound'];
const CONDS = ['the batch size exceeds 500', 'a tenant has more than 10k users', 'the token refresh races the logout',
  'the retry queue backs up', 'a webhook payload is over 1 MB', 'the cache is cold after a deploy'];
const WORKAROUNDS = ['restart the worker pod', 'lower the batch size to 200', 'flush the cache key by hand',
  'pin the client to v2.3', 'replay the dead-letter queue', 'toggle the fallback flag'];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];

/** @type {Record<string, string>} Each component named in other words. */
const PARAPHRASE = {
  'auth service': 'login system', 'billing API': 'invoicing endpoints', 'search indexer': 'lookup crawler',
  'mobile app': 'phone application', 'web dashboard': 'browser overview screens', 'CI pipeline': 'continuous integration builds',
  'data warehouse': 'analytics database', 'notification worker': 'alerts sender', 'payments gateway': 'checkout processor',
  'image resizer': 'picture scaler', 'admin console': 'operator panel', 'feature-flag service': 'toggle system',
  'audit log': 'compliance trail', 'export job': 'download batch task', 'GraphQL gateway': 'query front door',
  'rate limiter': 'throttling component', 'session store': 'logged-in state cache', 'email renderer': 'mail templating',
  'webhook relay': 'callback forwarder', 'onboarding flow': 'signup journey', 'reporting cron': 'scheduled reports',
  'metrics exporter': 'telemetry shipper', 'schema registry': 'data contract catalog', 'CDN config': 'edge caching settings',
  'load balancer': 'traffic distributor',
};
/** @type {((p: string) => string)[]} One paraphrased question per kind of fact (see generate). */
const PARAPHRASE_Q = [
  (p) => `why did we migrate the ${p}?`,
  (p) => `who is responsible for the ${p}?`,
  (p) => `which weekday are releases of the ${p}?`,
  (p) => `the ${p} keeps hanging, is there a fix?`,
  (p) => `what does the ${p} run on in prod?`,
];

/**
 * @param {string} outDir
 * @param {{facts?: number, seed?: number}} [opts]
 */
function generate(outDir, opts = {}) {
  const nFacts = opts.facts ?? 300;
  const r = rng(opts.seed ?? 42);
  /** @template T @param {T[]} a @returns {T} */
  const pick = (a) => a[Math.floor(r() * a.length)];
  const id = () => 'm-' + Math.floor(r() * 2 ** 31).toString(36).padStart(6, '0').slice(0, 6);
  const start = Date.parse('2026-01-05T00:00:00Z');
  const day = (i) => new Date(start + Math.floor((i / nFacts) * 300) * 86400000).toISOString().slice(0, 10);
  fs.mkdirSync(path.join(outDir, 'condensations'), { recursive: true });

  /** @type {{line: string, question: string, heading: string, comp: string, kind: number}[]} */
  const facts = [];
  const headings = ['Decisions', 'Ownership', 'Operations', 'Known Issues', 'Conventions'];
  for (let i = 0; i < nFacts; i++) {
    const comp = pick(COMPONENTS);
    const t1 = pick(TECH);
    let t2 = pick(TECH);
    if (t2 === t1) t2 = TECH[(TECH.indexOf(t1) + 1) % TECH.length];
    const who = pick(PEOPLE);
    const d = day(i);
    const tag = `[from: #${comp.split(' ')[0].toLowerCase()}-dev, ${d}]`;
    const kind = i % 5;
    let text;
    let question;
    if (kind === 0) {
      text = `Decided to move the ${comp} from ${t1} to ${t2} because ${pick(REASONS)}.`;
      question = pick([`Why did we move the ${comp} to ${t2}?`, `What did we decide about ${t1} for the ${comp}?`, `is the ${comp} still on ${t1}?`]);
    } else if (kind === 1) {
      text = `${who} owns the ${comp}; page ${who} first when it breaks.`;
      question = pick([`who owns the ${comp}?`, `Who should I ping when the ${comp} breaks?`, `who's on point for the ${comp}`]);
    } else if (kind === 2) {
      const wd = pick(WEEKDAYS);
      text = `Deploys of the ${comp} go out on ${wd}s after the standup, never on Fridays after 3pm.`;
      question = pick([`When do we deploy the ${comp}?`, `can I ship the ${comp} today?`, `what's the deploy schedule for the ${comp}`]);
    } else if (kind === 3) {
      const cond = pick(CONDS);
      text = `Known issue: the ${comp} times out when ${cond}; workaround: ${pick(WORKAROUNDS)}.`;
      question = pick([`the ${comp} is timing out again, any workaround?`, `Is there a known issue with the ${comp} timing out?`, `how do we fix the ${comp} timeouts`]);
    } else {
      text = `The ${comp} uses ${t1} in production and ${t2} in local development; config lives in infra/${comp.replace(/[^a-z]+/gi, '-').toLowerCase()}.yaml.`;
      question = pick([`where is the config for the ${comp}?`, `What does the ${comp} use in production?`, `which ${t1} setup does the ${comp} run locally?`]);
    }
    facts.push({ line: `- [${id()}] ${text} ${tag}`, question, heading: headings[kind], comp, kind });
  }
  // A few superseded entries, as the store writes them.
  const memLines = ['# Channel Memory', '', '<!-- Durable facts, decisions, preferences and constraints, one per line. -->', ''];
  for (const h of headings) {
    memLines.push(`## ${h}`, '');
    for (const f of facts) if (f.heading === h) memLines.push(f.line);
    memLines.push('- ~~[m-0ld001] The ' + pick(COMPONENTS) + ' runs on Heroku~~ → [m-0ld002] (2026-02-01) [from: #ops, 2026-01-10]', '');
  }
  fs.writeFileSync(path.join(outDir, 'MEMORY.md'), memLines.join('\n'));

  const hist = ['# Channel History', ''];
  const weeks = Math.max(4, Math.floor(nFacts / 6));
  for (let w = 0; w < weeks; w++) {
    const d = new Date(start + w * 7 * 86400000).toISOString().slice(0, 10);
    const a = pick(COMPONENTS);
    const b = pick(COMPONENTS);
    hist.push(`## Week of ${d}`, '',
      `The team spent the week on the ${a} and the ${b}. ${pick(PEOPLE)} finished the ${pick(TECH)} upgrade of the ${a} ` +
      `after ${pick(REASONS)}; ${pick(PEOPLE)} reviewed the rollout plan and ${pick(PEOPLE)} wrote the runbook. ` +
      `The ${b} had one incident when ${pick(CONDS)}, resolved by having someone ${pick(WORKAROUNDS)}. ` +
      `Open questions moved to the next planning meeting.`, '');
  }
  fs.writeFileSync(path.join(outDir, 'HISTORY.md'), hist.join('\n'));

  const goal = pick(COMPONENTS);
  fs.writeFileSync(path.join(outDir, 'SESSION.md'), [
    '# Session', '', '## Goal', '', `Ship the ${goal} migration to ${pick(TECH)} before the quarter ends.`, '',
    '## Current State', '', `- Staging runs the new ${goal}; production still on the old stack.`, `- Load test showed ${pick(REASONS)}.`, '',
    '## Next Steps', '', `- ${pick(PEOPLE)} to rerun the load test with the ${pick(TECH)} client.`, `- Write the rollback runbook for the ${goal}.`, '',
  ].join('\n'));
  fs.writeFileSync(path.join(outDir, 'CONTEXT.md'), `# Channel Context\n\n## Current State\n\nMigrating the ${goal}.\n`);
  for (let k = 0; k < 3; k++) {
    const comp = pick(COMPONENTS);
    const d = day(k * Math.floor(nFacts / 3));
    const superseded = k === 0 ? 'superseded_by: 2026-06-01-later.md\n' : '';
    fs.writeFileSync(path.join(outDir, 'condensations', `${d}-${comp.replace(/[^a-z]+/gi, '-').toLowerCase()}.md`),
      `---\ntitle: ${comp} rollout\ndate: ${d}\n${superseded}---\n\n## 📝 Condensation: ${comp} rollout\n\n` +
      `**Decision:** Roll the ${comp} out behind a feature flag, ten percent of tenants per day.\n` +
      `**Why:** The last big-bang release of the ${comp} caused an outage when ${pick(CONDS)}.\n` +
      `**Owner:** ${pick(PEOPLE)}\n`);
  }
  const qs = facts.map((f, i) => ({ id: `p${String(i).padStart(4, '0')}`, query: f.question, source: f.line }));
  fs.writeFileSync(path.join(outDir, 'questions.jsonl'), qs.map((q) => JSON.stringify(q)).join('\n') + '\n');
  // The same questions in other words: no word of the component's name, nor any other specific word
  // of the entry. Fixed templates (no random draws), so the channel above is unchanged.
  const para = facts.map((f, i) => ({ id: `r${String(i).padStart(4, '0')}`, query: PARAPHRASE_Q[f.kind](PARAPHRASE[f.comp]), source: f.line }));
  fs.writeFileSync(path.join(outDir, 'paraphrases.jsonl'), para.map((q) => JSON.stringify(q)).join('\n') + '\n');
  return { facts: facts.length, questions: qs.length };
}

module.exports = { generate };

if (require.main === module) {
  const out = process.argv[2];
  if (!out) {
    process.stderr.write('usage: gen-project-channel.js OUT_DIR [--facts N] [--seed S]\n');
    process.exit(2);
  }
  const num = (name, d) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : d;
  };
  console.log(JSON.stringify(generate(path.resolve(out), { facts: num('--facts', 300), seed: num('--seed', 42) })));
}
