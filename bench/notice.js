#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * What noticing decisions costs on ordinary chat: 1,000 messages of everyday chat
 * (bench/data/abstention/chat-lines.txt, shuffled with a fixed seed) spread over 10 channels, four
 * people, through the same rule the bot uses (dist/condense/observers/notice.js: at least 6 messages from 2
 * people ending on words of agreement, then one side-task call; a channel's window starts afresh
 * after a call). Prints the model calls and the input tokens they would cost (characters / 4, the
 * fakes' rule, instructions included), per 1,000 messages. A second stream mixes in one concluded
 * project discussion per 50 messages, for scale.
 *
 * Usage: npm run build && node bench/notice.js [--messages 1000]
 */
const fs = require('node:fs');
const path = require('node:path');
const { rng } = require('./rng');
const root = path.resolve(__dirname, '..');
const { worthAsking, WINDOW } = require(path.join(root, 'dist', 'condense', 'observers', 'notice.js'));

const n = (() => {
  const i = process.argv.indexOf('--messages');
  return i > 0 ? Number(process.argv[i + 1]) : 1000;
})();
const chat = fs
  .readFileSync(path.join(__dirname, 'data', 'abstention', 'chat-lines.txt'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const DECISION = [
  'Postgres or SQLite for the importer?',
  'SQLite is simpler.',
  'We need concurrent writers though.',
  'Postgres then?',
  'Ops runs Postgres already.',
  "Agreed, let's go with Postgres.",
];
/** The instructions and the wrapper the call sends besides the discussion (src/condense/observers/notice.ts). */
const OVERHEAD_CHARS = 520;

/** @param {boolean} withDecisions */
function run(withDecisions) {
  const r = rng(7);
  /** @type {Map<number, {authorId: string, authorName: string, content: string, id: string, at: number}[]>} */
  const windows = new Map();
  let calls = 0;
  let chars = 0;
  let k = 0;
  for (let i = 0; i < n; i++) {
    const channel = Math.floor(r() * 10);
    const who = `u${Math.floor(r() * 4)}`;
    let lines = [chat[Math.floor(r() * chat.length)]];
    if (withDecisions && i % 50 === 49) lines = DECISION;
    for (const content of lines) {
      const w = windows.get(channel) ?? [];
      w.push({ id: String(k++), authorId: lines.length > 1 ? `u${w.length % 2}` : who, authorName: who, content, at: i });
      if (w.length > WINDOW) w.splice(0, w.length - WINDOW);
      windows.set(channel, w);
      if (worthAsking(w)) {
        calls++;
        chars += OVERHEAD_CHARS + w.reduce((a, m) => a + m.authorName.length + 2 + m.content.length + 1, 0);
        windows.set(channel, []);
      }
    }
  }
  return { calls, tokens: Math.ceil(chars / 4) };
}

const plain = run(false);
const mixed = run(true);
const per = (/** @type {number} */ x) => ((x * 1000) / n).toFixed(1);
console.log(`# noticing decisions, ${new Date().toISOString().slice(0, 10)}: ${n} messages, 10 channels, 4 people`);
console.log('| stream | model calls per 1,000 messages | input tokens per 1,000 messages |\n|---|---:|---:|');
console.log(`| everyday chat only | ${per(plain.calls)} | ${per(plain.tokens)} |`);
console.log(`| everyday chat + one concluded discussion per 50 messages | ${per(mixed.calls)} | ${per(mixed.tokens)} |`);
