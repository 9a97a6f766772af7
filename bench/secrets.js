#!/usr/bin/env node
/*
 * The secret detector on its corpus (test/memory/fixtures/secret-corpus.json): misses (a secret
 * sentence whose value survives) and false alarms (an ordinary sentence that is changed), for the
 * corpus the rules were written against and, separately, for the held-back sentences written after
 * (heldBack: issue 22's; heldBackNounValue: issue 40's, a credential noun followed by its value).
 * Uses dist/: `npm run bench:secrets` builds first.
 */
'use strict';
const path = require('node:path');
const { redactSecrets } = require('../dist/shared/secrets');

const corpus = require(path.join(__dirname, '..', 'test', 'memory', 'fixtures', 'secret-corpus.json'));

function score(name, part) {
  const misses = part.secret.filter((s) => redactSecrets(s.text).includes(s.value));
  const alarms = part.ordinary.filter((t) => redactSecrets(t) !== t);
  console.log(`${name}: ${part.secret.length} secret sentences, ${misses.length} missed; ${part.ordinary.length} ordinary, ${alarms.length} false alarms`);
  for (const s of misses) console.log(`  miss:        ${s.text}  ->  ${redactSecrets(s.text)}`);
  for (const t of alarms) console.log(`  false alarm: ${t}  ->  ${redactSecrets(t)}`);
  return { misses: misses.length, alarms: alarms.length };
}

const parts = [corpus, corpus.heldBack, corpus.heldBackNounValue];
const all = parts.flatMap((p) => [...p.secret.map((s) => s.text), ...p.ordinary]);
score('corpus', corpus);
score('held back', corpus.heldBack);
score('held back (noun, value)', corpus.heldBackNounValue);

// Speed: every sentence of both parts, many times, and a log-like field that the cheap look skips.
const rounds = 2000;
let t0 = process.hrtime.bigint();
for (let i = 0; i < rounds; i++) for (const t of all) redactSecrets(t);
const perSentence = Number(process.hrtime.bigint() - t0) / (rounds * all.length) / 1000;
const plain = ['local/ops', 'reply', '2026-11-25T10:15:00.000Z', 'could not append to log.jsonl', 'm-1a2b3c'];
t0 = process.hrtime.bigint();
for (let i = 0; i < rounds * 20; i++) for (const t of plain) redactSecrets(t);
const perField = Number(process.hrtime.bigint() - t0) / (rounds * 20 * plain.length) / 1000;
console.log(`speed: ${perSentence.toFixed(2)} µs per corpus sentence, ${perField.toFixed(2)} µs per plain log field`);
