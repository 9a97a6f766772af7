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
 * - the same on-topic questions in other words (paraphrases.jsonl): no specific word shared with the
 *   entry, so words alone cannot answer them and meaning should;
 * - held out from tuning the per-channel abstention rule (fusion.ts): 76 more chat lines
 *   (chat-lines-heldout.txt), a channel of look-alike lines (data/gen-lookalike-channel.js) with its
 *   questions and paraphrases, and LoCoMo conv-41 and conv-42 (people's everyday chat).
 * Runs the real command (`minutes recall --queries`) and reports per channel: share of chat lines
 * recalling nothing (goal ≥ 0.97), share of questions recalling something (goal ≥ 0.95) and how
 * often the line a question came from is among the items, each marked tuned or held out.
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

/** A chat-lines file as queries: its lines, and the JSONL file `minutes recall --queries` reads. @param {string} name @param {string} prefix */
function chatQueries(name, prefix) {
  const lines = fs
    .readFileSync(path.join(__dirname, 'data', 'abstention', name), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const file = path.join(outDir, `${prefix}.jsonl`);
  fs.writeFileSync(file, lines.map((q, i) => JSON.stringify({ id: `${prefix}${i}`, query: q })).join('\n') + '\n');
  return { lines, file };
}
const { lines: chat, file: chatFile } = chatQueries('chat-lines.txt', 'c');

const channel = path.join(outDir, 'project');
const facts = num('--facts', 300);
generate(channel, { facts, seed: num('--seed', 42) });
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
const { generate: generateLookalike } = require('./data/gen-lookalike-channel');
const lookalike = path.join(outDir, 'lookalike');
generateLookalike(lookalike, { lines: 400, seed: 7 });
const { lines: heldChat, file: heldChatFile } = chatQueries('chat-lines-heldout.txt', 'h');
/** @param {string} dir @param {string} name */
function jsonl(dir, name) {
  const lines = fs
    .readFileSync(path.join(dir, name), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const file = path.join(outDir, `${path.basename(dir)}-${name}`);
  fs.writeFileSync(file, lines.map((q) => JSON.stringify({ id: q.id, query: q.query ?? q.question })).join('\n') + '\n');
  return { lines, file };
}
console.log(
  `# recall abstention, ${new Date().toISOString().slice(0, 10)}; --semantic ${semantic}; generated channel: ${facts} facts, seed ${num('--seed', 42)}`,
);
const locomo = (/** @type {string} */ c) => path.join(__dirname, 'data', 'locomo-dev', 'channels', c);
/** Channels, and whether the abstention rule was tuned on them (the rest are held out). */
const channels = [
  ['project (generated)', channel, now, true],
  ['LoCoMo conv-26', locomo('conv-26'), '2023-12-01', true],
  ['LoCoMo conv-30', locomo('conv-30'), '2023-12-01', true],
  ['look-alike lines (generated)', lookalike, now, false],
  ['LoCoMo conv-41', locomo('conv-41'), '2024-01-01', false],
  ['LoCoMo conv-42', locomo('conv-42'), '2024-01-01', false],
];
/** @type {[string, string, string, number, number][]} */
const rows = [];
for (const [label, dir, at, tuned] of channels) {
  const quietOn = (/** @type {string} */ file, /** @type {string[]} */ lines, /** @type {string} */ setName, /** @type {boolean} */ tunedSet) => {
    const res = run(String(dir), file, String(at));
    const quiet = res.filter((r) => r.text === '').length;
    rows.push([`${setName} → ${label}: recall nothing`, tuned && tunedSet ? 'tuned' : 'held out', '', quiet, lines.length]);
    if (show) for (const [i, r] of res.entries()) if (r.text) console.log(`  ${label} recalled for ${JSON.stringify(lines[i])}: ${r.items.length} item(s)`);
  };
  quietOn(chatFile, chat, 'chat lines', true);
  quietOn(heldChatFile, heldChat, 'held-back chat lines', false);
  for (const name of ['questions.jsonl', 'paraphrases.jsonl']) {
    if (!fs.existsSync(path.join(String(dir), name))) continue;
    const { lines, file } = jsonl(String(dir), name);
    const res = run(String(dir), file, String(at));
    const kind = name === 'questions.jsonl' ? 'on-topic questions' : 'paraphrased questions';
    rows.push([`${kind} → ${label}: recall something`, tuned ? 'tuned' : 'held out', '', res.filter((r) => r.text !== '').length, lines.length]);
    if (lines[0].source)
      rows.push([
        `${kind} → ${label}: the source line is among the items`,
        tuned ? 'tuned' : 'held out',
        '',
        res.filter((r, i) => r.items.some((it) => it.text === lines[i].source)).length,
        lines.length,
      ]);
  }
}
console.log('\n| measure | rule tuned on it? | share | n |\n|---|---|---:|---:|');
for (const [label, tuned, , k, n] of rows) console.log(`| ${label} | ${tuned} | ${(k / n).toFixed(3)} | ${k}/${n} |`);
