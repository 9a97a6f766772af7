#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * A channel whose lines all look alike ("The router uses the certificate for vendor; Mo owns it
 * (ticket 9865)"): one template, short names, a number at the end. A sentence model scores every
 * short, empty chat line close to every such line, so one cosine floor cannot fit it; it is the
 * channel the per-channel abstention bar has to handle. Held out: written on 2026-11-25 before that
 * rule was tuned, and used only to score it.
 *
 * Writes MEMORY.md (400 lines), a SESSION.md stub with a placeholder, questions.jsonl (on-topic, one
 * per line, sharing its specific words) and paraphrases.jsonl (the same facts in other words).
 * Usage: node bench/data/gen-lookalike-channel.js OUT_DIR [--lines N] [--seed S]
 */
const fs = require('node:fs');
const path = require('node:path');
const { rng } = require('../rng');

const THINGS = ['router', 'firewall', 'mail relay', 'VPN gateway', 'print server', 'backup NAS', 'badge reader',
  'door controller', 'wiki', 'build agent', 'DNS resolver', 'proxy', 'file share', 'time server', 'phone system',
  'guest wifi', 'label printer', 'camera recorder', 'license server', 'bastion host'];
const USES = ['certificate', 'service account', 'API quota', 'support contract', 'SSD pool', 'static IP',
  'SMTP credentials', 'domain', 'firmware image', 'UPS', 'maintenance window', 'monitoring check'];
const PARTIES = ['vendor', 'finance', 'the lab', 'marketing', 'HR', 'the warehouse', 'legal', 'support'];
const PEOPLE = ['Mo', 'Ana', 'Kit', 'Raj', 'Ola', 'Ben', 'Su', 'Eli', 'Tam', 'Noor'];
/** Each thing and use in other words, for paraphrased questions. */
const THING_OTHER = {
  router: 'network box', firewall: 'packet filter', 'mail relay': 'outgoing email forwarder', 'VPN gateway': 'remote access endpoint',
  'print server': 'printing host', 'backup NAS': 'storage appliance for copies', 'badge reader': 'access card scanner',
  'door controller': 'entrance lock unit', wiki: 'internal knowledge pages', 'build agent': 'compile machine',
  'DNS resolver': 'name lookup service', proxy: 'outbound web middlebox', 'file share': 'shared drive', 'time server': 'clock sync host',
  'phone system': 'telephony setup', 'guest wifi': 'visitor wireless', 'label printer': 'sticker machine',
  'camera recorder': 'video surveillance box', 'license server': 'seat allocation host', 'bastion host': 'jump box',
};

/** @param {string} outDir @param {{lines?: number, seed?: number}} [opts] */
function generate(outDir, opts = {}) {
  const n = opts.lines ?? 400;
  const r = rng(opts.seed ?? 7);
  /** @template T @param {T[]} a @returns {T} */
  const pick = (a) => a[Math.floor(r() * a.length)];
  fs.mkdirSync(outDir, { recursive: true });
  const lines = ['# Channel Memory', '', '## Durable Facts', ''];
  const qs = [];
  const para = [];
  for (let i = 0; i < n; i++) {
    const thing = pick(THINGS);
    const use = pick(USES);
    const party = pick(PARTIES);
    const who = pick(PEOPLE);
    const ticket = 1000 + Math.floor(r() * 9000);
    const day = new Date(Date.parse('2026-02-01T00:00:00Z') + Math.floor(r() * 280) * 86400000).toISOString().slice(0, 10);
    const id = 'm-' + Math.floor(r() * 2 ** 31).toString(36).padStart(6, '0').slice(0, 6);
    const line = `- [${id}] The ${thing} uses the ${use} for ${party}; ${who} owns it (ticket ${ticket}) [from: #it-ops, ${day}]`;
    lines.push(line);
    const q = i % 3;
    qs.push({
      id: `l${i}`,
      query: q === 0 ? `who owns the ${use} on the ${thing}?` : q === 1 ? `what is ticket ${ticket} about?` : `which ${use} does the ${thing} use for ${party}?`,
      source: line,
    });
    para.push({ id: `lp${i}`, query: `who is in charge of the ${THING_OTHER[/** @type {keyof typeof THING_OTHER} */ (thing)]}?`, source: line });
  }
  fs.writeFileSync(path.join(outDir, 'MEMORY.md'), lines.join('\n') + '\n');
  fs.writeFileSync(path.join(outDir, 'SESSION.md'), '# Session\n\n## Goal\n\n(no active task)\n\n## Current State\n\n- (none)\n');
  fs.writeFileSync(path.join(outDir, 'questions.jsonl'), qs.map((q) => JSON.stringify(q)).join('\n') + '\n');
  fs.writeFileSync(path.join(outDir, 'paraphrases.jsonl'), para.map((q) => JSON.stringify(q)).join('\n') + '\n');
  return { lines: n };
}

module.exports = { generate };

if (require.main === module) {
  const out = process.argv[2];
  if (!out) {
    process.stderr.write('usage: gen-lookalike-channel.js OUT_DIR [--lines N] [--seed S]\n');
    process.exit(2);
  }
  const num = (/** @type {string} */ name, /** @type {number} */ d) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : d;
  };
  console.log(JSON.stringify(generate(path.resolve(out), { lines: num('--lines', 400), seed: num('--seed', 7) })));
}
