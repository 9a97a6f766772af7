#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Recall abstention: does recall inject nothing for messages unrelated to the channel's memory, and
 * something for on-topic ones?
 *
 * - bench/data/abstention/chat-lines.txt: 243 everyday chat lines (greetings, thanks, jokes, world
 *   questions, questions to the bot about itself);
 * - a generated project-like channel (bench/data/gen-project-channel.js, 300 facts, seed 42) with its
 *   on-topic questions (each generated from one MEMORY.md entry).
 * Runs the real command (`minutes recall --queries`) and reports: share of chat lines recalling
 * nothing (goal ≥ 0.9), share of on-topic questions recalling something (goal ≥ 0.9) and how often
 * the entry the question came from is among the items. For reference, also the chat lines against
 * the two LoCoMo channels (two friends' everyday lives: the hardest case for a chat line).
 *
 * - the same on-topic questions in other words (paraphrases.jsonl): no specific word shared with the
 *   entry, so words alone cannot answer them and meaning should.
 *
 * Usage: npm run build && node bench/recall-abstention.js [--facts N] [--seed S] [--semantic off|local] [--show]
 *   (vectors cached under bench/out/vectors)
 */
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { generate } = require('./data/gen-project-channel');

const root = path.resolve(__dirname, '..');
const bin = process.env.MINUTES_BIN || path.join(root, 'bin', 'minutes.js');
const outDir = path.join(root, 'bench', 'out', 'abstention');
const num = (/** @type {string} */ name, /** @type {number} */ d) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const show = process.argv.includes('--show');
fs.rmSync(outDir, { recursive: true, force: true });
fs.mkdirSync(outDir, { recursive: true });

const chat = fs
  .readFileSync(path.join(__dirname, 'data', 'abstention', 'chat-lines.txt'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const chatFile = path.join(outDir, 'chat.jsonl');
fs.writeFileSync(chatFile, chat.map((q, i) => JSON.stringify({ id: `c${i}`, query: q })).join('\n') + '\n');

const channel = path.join(outDir, 'project');
const facts = num('--facts', 300);
generate(channel, { facts, seed: num('--seed', 42) });
const onTopic = fs
  .readFileSync(path.join(channel, 'questions.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const onTopicFile = path.join(outDir, 'ontopic.jsonl');
fs.writeFileSync(onTopicFile, onTopic.map((q) => JSON.stringify({ id: q.id, query: q.query })).join('\n') + '\n');
// The same questions in other words (no specific word shared with the entry): meaning must answer them.
const para = fs
  .readFileSync(path.join(channel, 'paraphrases.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const paraFile = path.join(outDir, 'paraphrases.jsonl');
fs.writeFileSync(paraFile, para.map((q) => JSON.stringify({ id: q.id, query: q.query })).join('\n') + '\n');

const semIdx = process.argv.indexOf('--semantic');
const semantic = semIdx > 0 ? process.argv[semIdx + 1] : 'local';
const vectorCache = path.join(root, 'bench', 'out', 'vectors');
/** @param {string} dir @param {string} file @param {string} now */
function run(dir, file, now) {
  const args = [bin, 'recall', '--channel-dir', dir, '--queries', file, '--now', now, '--semantic', semantic, '--vector-cache', vectorCache];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`recall failed: ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

const now = '2026-11-21';
console.log(
  `# recall abstention, ${new Date().toISOString().slice(0, 10)}; --semantic ${semantic}; generated channel: ${facts} facts, seed ${num('--seed', 42)}`,
);
const chatRes = run(channel, chatFile, now);
const chatQuiet = chatRes.filter((r) => r.text === '').length;
const topicRes = run(channel, onTopicFile, now);
const topicSome = topicRes.filter((r) => r.text !== '').length;
const topicHit = topicRes.filter((r, i) => r.items.some((it) => it.text === onTopic[i].source)).length;
const rows = [
  ['everyday chat lines → project channel: recall nothing', chatQuiet, chat.length],
  ['on-topic questions → project channel: recall something', topicSome, onTopic.length],
  ['on-topic questions: the source entry is among the items', topicHit, onTopic.length],
];
const paraRes = run(channel, paraFile, now);
rows.push(['paraphrased on-topic questions → project channel: recall something', paraRes.filter((r) => r.text !== '').length, para.length]);
rows.push([
  'paraphrased on-topic questions: the source entry is among the items',
  paraRes.filter((r, i) => r.items.some((it) => it.text === para[i].source)).length,
  para.length,
]);
for (const conv of ['conv-26', 'conv-30']) {
  const dir = path.join(__dirname, 'data', 'locomo-dev', 'channels', conv);
  const res = run(dir, chatFile, '2023-12-01');
  rows.push([`everyday chat lines → LoCoMo ${conv} (reference): recall nothing`, res.filter((r) => r.text === '').length, chat.length]);
  if (show) for (const [i, r] of res.entries()) if (r.text) console.log(`  ${conv} recalled for ${JSON.stringify(chat[i])}: ${r.items.length} item(s)`);
}
console.log('\n| measure | share | n |\n|---|---:|---:|');
for (const [label, k, n] of rows) console.log(`| ${label} | ${(Number(k) / Number(n)).toFixed(3)} | ${k}/${n} |`);
if (show) {
  for (const [i, r] of chatRes.entries())
    if (r.text) console.log(`project recalled for ${JSON.stringify(chat[i])}: ${r.items.map((x) => x.text.slice(0, 60)).join(' | ')}`);
  for (const [i, r] of topicRes.entries()) if (!r.text) console.log(`project abstained on ${JSON.stringify(onTopic[i].query)}`);
}
