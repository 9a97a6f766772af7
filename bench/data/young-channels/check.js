#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Checks the young-channel questions against their promise, with the product's own tokenizer
 * (dist/, so `npm run build` first): a direct question shares at least one specific word (a stemmed
 * token not in recall's list of common English words) with the memory line it came from; a
 * paraphrase shares none. Also that each off-topic question marked `shares` holds that word and some
 * channel (or the example channel) does too. Prints each violation; exit 1 if any.
 *
 * Usage: npm run build && node bench/data/young-channels/check.js
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..', '..');
const { tokenize, queryTokens, stem } = require(path.join(root, 'dist', 'recall', 'tokenize.js'));
const { COMMON_ENGLISH } = require(path.join(root, 'dist', 'recall', 'commonWords.js'));
const common = new Set(
  String(COMMON_ENGLISH)
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => stem(w.toLowerCase())),
);
/** @param {string} file */
const jsonl = (file) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

let bad = 0;
/** @type {Set<string>[]} every channel's words */
const channelWords = [];
const dirs = fs
  .readdirSync(__dirname, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => path.join(__dirname, d.name));
for (const dir of [...dirs, path.join(root, 'examples', 'local', 'orders-team')]) {
  const memory = fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8');
  const texts = [memory, ...['HISTORY.md', 'SESSION.md'].filter((f) => fs.existsSync(path.join(dir, f))).map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))];
  for (const f of fs.readdirSync(path.join(dir, 'condensations'))) texts.push(fs.readFileSync(path.join(dir, 'condensations', f), 'utf8'));
  channelWords.push(new Set(tokenize(texts.join('\n'))));
  if (!fs.existsSync(path.join(dir, 'questions.jsonl'))) continue;
  /** @type {Map<string, string>} m-id → the entry's text, provenance left out */
  const lines = new Map();
  for (const m of memory.matchAll(/^- \[(m-[0-9a-z]{6})\] (.*?) \[from: [^\]]*\]$/gm)) lines.set(m[1], m[2]);
  for (const q of jsonl(path.join(dir, 'questions.jsonl'))) {
    const line = lines.get(q.source);
    if (!line) {
      console.log(`${q.id}: no live MEMORY.md entry ${q.source}`);
      bad++;
      continue;
    }
    const words = new Set(tokenize(line));
    const specific = queryTokens(q.query).filter((/** @type {string} */ w) => words.has(w) && !common.has(w));
    if (q.kind === 'paraphrase' && specific.length) console.log(`${q.id}: paraphrase shares ${specific.join(', ')} with its line`);
    if (q.kind === 'direct' && !specific.length) console.log(`${q.id}: direct question shares no specific word with its line`);
    if ((q.kind === 'paraphrase') === specific.length > 0) bad++;
  }
}
for (const q of jsonl(path.join(__dirname, 'offtopic-technical.jsonl'))) {
  if (!q.shares) continue;
  const words = tokenize(q.shares);
  const inQuery = new Set(tokenize(q.query));
  if (!words.every((/** @type {string} */ w) => inQuery.has(w)) || !channelWords.some((c) => words.every((/** @type {string} */ w) => c.has(w)))) {
    console.log(`${q.id}: marked as sharing "${q.shares}", which it or every channel lacks`);
    bad++;
  }
}
console.log(bad ? `${bad} problem(s)` : 'ok');
process.exit(bad ? 1 : 0);
