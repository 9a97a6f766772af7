#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * CPU per model call of the HTTP client under the model SDKs: Node's global fetch against the
 * model clients' own fetch (src/llm/httpFetch.ts: undici's request under fetch's surface), in the
 * same run, against one local server in a child process (so the CPU measured is the client's only).
 * Each client sends the same Messages-API-sized request (4 KB out, ~300 bytes back), 20 at a time,
 * after a warm-up; the figure is this process's CPU (getrusage) per request.
 *
 *   npm run build && node bench/http-client.js [--requests N (2000)] [--concurrency C (20)]
 */
const path = require('node:path');
const { fork } = require('node:child_process');
const { serveCannedAnswer } = require('./canned-answer.js');

const ANSWER = JSON.stringify({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-bench',
  content: [{ type: 'text', text: 'ack c0001 m01 '.repeat(5) }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 1000, output_tokens: 20 },
});

if (process.argv[2] === '--serve') {
  serveCannedAnswer(ANSWER);
} else {
  void main();
}

async function main() {
  const arg = (name, dflt) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : dflt;
  };
  const requests = arg('--requests', 2000);
  const concurrency = arg('--concurrency', 20);
  const { createHttpFetch } = require(path.join(__dirname, '..', 'dist', 'llm', 'httpFetch.js'));
  const child = fork(__filename, ['--serve']);
  const port = await new Promise((resolve) => child.once('message', resolve));
  const url = `http://127.0.0.1:${port}/v1/messages`;
  const body = JSON.stringify({ model: 'claude-bench', max_tokens: 1024, messages: [{ role: 'user', content: 'x'.repeat(4000) }] });
  const headers = { 'content-type': 'application/json', 'x-api-key': 'bench-key', 'anthropic-version': '2023-06-01' };
  const own = createHttpFetch();
  /** @param {(u: string, i: RequestInit) => Promise<Response>} f */
  const call = (f) => async () => {
    const res = await f(url, { method: 'POST', headers: new globalThis.Headers(headers), body });
    await res.json();
  };
  /** @param {string} name @param {() => Promise<void>} one */
  async function run(name, one) {
    for (let i = 0; i < 200; i++) await one();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < requests) await one();
      }),
    );
    const cpu = process.cpuUsage(c0);
    const us = (cpu.user + cpu.system) / requests;
    console.log(`${name.padEnd(28)} ${us.toFixed(0).padStart(6)} µs CPU per request   ${(performance.now() - t0).toFixed(0).padStart(6)} ms wall`);
    return us;
  }
  console.log(`${requests} requests, ${concurrency} at a time, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}`);
  const fetchUs = await run('global fetch', call(fetch));
  const ownUs = await run('the model clients’ fetch', call(own.fetch));
  console.log(`ratio (model clients' / global fetch): ${(ownUs / fetchUs).toFixed(2)}`);
  await own.close();
  child.kill();
}
