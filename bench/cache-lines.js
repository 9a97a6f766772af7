// @ts-check
'use strict';
/**
 * Generates N realistic project-chat lines for the long (400-turn) cache run: the Kestrel team
 * (see bench/data/cache/CONTEXT.md) working through the 2.4 release, the 2.4.1 patch and 2.5
 * planning. Templated, deterministic from a seed; each line is "Name: message".
 */

const { rng } = require('./rng');

const PEOPLE = ['Priya', 'Marcus', 'Lena', 'Tomasz', 'Aiko', 'Diego'];
const PHASES = [
  { name: 'freeze week', tickets: ['KES-866', 'KES-851', 'KES-871', 'KES-874'] },
  { name: 'release 2.4', tickets: ['KES-866', 'KES-851', 'KES-905', 'KES-907'] },
  { name: 'patch 2.4.1', tickets: ['KES-902', 'KES-911', 'KES-914', 'KES-918'] },
  { name: '2.5 planning', tickets: ['KES-880', 'KES-760', 'KES-795', 'KES-921'] },
];
const THINGS = [
  'the background sync worker',
  'the conflict screen',
  'the PDF export',
  'the sync progress bar',
  'the tus upload sidecar',
  'the photo compressor',
  'the k6 load test',
  'the RDS failover',
  'the EventBridge cleanup job',
  'the release notes',
  'the device-lab suite',
  'the flags cache',
  'the vector clock column',
  'the ECS autoscaling policy',
  'the iOS build on the macos-14 runner',
  'the Android build',
  'the Grafana sync dashboard',
  'the on-call rota',
];
const DEVICES = ['the A54s', 'the Zebra TC58s', 'the Pixel 7a', 'an iPhone SE on iOS 16', 'the Android 10 test phone', 'the Pixel 8'];
const NUMS = ['2', '3', '5', '12', '40', '60', '140', '500', '800', '1,200'];
const DAYS = ['tomorrow', 'Thursday', 'Friday', 'Monday', 'after the standup', 'before the go/no-go', 'this afternoon'];

/** @type {((r: () => number, p: typeof PHASES[number], pick: <T>(xs: T[]) => T) => string)[]} */
const TEMPLATES = [
  (_r, p, pick) =>
    `quick status on ${pick(p.tickets)}: ${pick(THINGS)} now passes on ${pick(DEVICES)}, I'll run it once more on ${pick(DEVICES)} ${pick(DAYS)}.`,
  (_r, p, pick) => `does anyone know if ${pick(THINGS)} still needs a review from Marcus, or can I merge ${pick(p.tickets)} once CI is green?`,
  (r, _p, _pick) =>
    `I looked at the Grafana "Sync v3" board: p95 of POST /v3/sync is around ${600 + Math.floor(r() * 300)} ms at ${20 + Math.floor(r() * 40)} rps, conflict rate ${(0.1 + r() * 0.4).toFixed(2)}%.`,
  (_r, _p, pick) => `heads-up: ${pick(THINGS)} failed twice overnight with a timeout. Not reproducible yet, I'll dig into the logs ${pick(DAYS)}.`,
  (_r, p, pick) => `let's keep ${pick(p.tickets)} out of ${p.name} unless it's merged by ${pick(DAYS)}; we can ship it in the next patch.`,
  (_r, p, pick) => `Karen from Northfield asked whether ${pick(THINGS)} will change for the crews in ${p.name}. What should Diego tell her?`,
  (_r, p, pick) => `I updated the test plan for ${pick(p.tickets)}: ${pick(NUMS)} new cases, mostly ${pick(THINGS)} on ${pick(DEVICES)}.`,
  (_r, _p, pick) => `agreed, we go with the smaller change for ${pick(THINGS)} and revisit it in 2.5 planning.`,
  (_r, p, pick) => `can you remind me what we decided about ${pick(THINGS)} last week? I need it for the ${p.name} notes.`,
  (r, _p, pick) =>
    `CI note: the ${pick(['iOS', 'Android'])} job on release/2.4 took ${15 + Math.floor(r() * 20)} minutes today, the cache for ${pick(['Gradle', 'CocoaPods', 'node_modules'])} missed again.`,
  (_r, p, pick) => `PR for ${pick(p.tickets)} is up, it touches ${pick(THINGS)} and ${pick(THINGS)}. Small diff, ${pick(NUMS)} lines of tests.`,
  (_r, p, pick) =>
    `the migration for ${pick(p.tickets)} runs in batches of 5,000 rows with a 200 ms pause, it should take about ${pick(NUMS)} minutes on production.`,
  (_r, _p, _pick) => `thanks, that helps. I'll write it up in the kestrel-ops repo so whoever is on call knows.`,
  (_r, _p, pick) => `I'm on call this week. Two pages last night, both from ${pick(THINGS)}, both resolved by themselves within ${pick(NUMS)} minutes.`,
  (_r, p, pick) =>
    `design question for ${pick(p.tickets)}: should ${pick(THINGS)} show an error banner or retry silently? Crews hate banners they can't act on.`,
  (_r, _p, pick) => `from now on please tag me on anything that changes ${pick(THINGS)}, I keep finding out from the release notes.`,
  (_r, _p, pick) => `Northfield reported ${pick(NUMS)} devices with stuck syncs this morning, all ${pick(DEVICES)}. I asked them for logs.`,
  (_r, _p, pick) => `numbers from the pilot: ${pick(NUMS)} inspections synced yesterday, ${pick(NUMS)} photos, no failed uploads.`,
  (_r, p, pick) => `what's the rollback plan if ${pick(THINGS)} misbehaves after ${p.name}? Flag flip, or do we need a hotfix build?`,
  (_r, p, pick) => `I moved ${pick(p.tickets)} to in review. ${pick(PEOPLE)}, can you take it ${pick(DAYS)}?`,
];

/** @param {number} n @param {number} [seed] @returns {string[]} */
function generateLines(n, seed = 2404) {
  const r = rng(seed);
  /** @type {<T>(xs: T[]) => T} */
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const out = [];
  for (let i = 0; i < n; i++) {
    const phase = PHASES[Math.min(PHASES.length - 1, Math.floor((i / n) * PHASES.length))];
    const who = pick(PEOPLE);
    out.push(`${who}: ${pick(TEMPLATES)(r, phase, pick)}`);
  }
  return out;
}

module.exports = { generateLines };
