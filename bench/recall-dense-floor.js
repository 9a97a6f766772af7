#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Calibrates the dense floor (RecallTuning.denseGate): the cosine above which meaning alone may make
 * recall speak. For the everyday chat lines (bench/data/abstention) and the generated channel's
 * paraphrased on-topic questions, it prints the best cosine each reaches against the channel's lines
 * (packaged model), and for candidate floors the share of chat lines that would still be silent and
 * of paraphrases that would be answered. Also against the two LoCoMo channels (chat about everyday
 * life: the hardest case for a chat line).
 *
 * Usage: npm run build && node bench/recall-dense-floor.js   (vectors cached under bench/out/vectors)
 */
const fs = require('node:fs');
const path = require('node:path');
const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');
const { createRecall } = require(path.join(dist, 'memory', 'recall.js'));
const { CandidateVectors } = require(path.join(dist, 'memory', 'recallVectors.js'));
const { VectorCache } = require(path.join(dist, 'embed', 'vectorCache.js'));
const { WorkerEmbedder } = require(path.join(dist, 'embed', 'workerEmbedder.js'));
const { silentLogger } = require(path.join(dist, 'log', 'logger.js'));
const { generate } = require('./data/gen-project-channel');

async function main() {
  const logger = silentLogger();
  const embedder = new WorkerEmbedder({ logger });
  const cache = new VectorCache({ dir: path.join(root, 'bench', 'out', 'vectors'), modelId: embedder.id, logger });
  const vectors = new CandidateVectors({ embedder, cache, logger });
  const chat = fs
    .readFileSync(path.join(__dirname, 'data', 'abstention', 'chat-lines.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const channel = path.join(root, 'bench', 'out', 'dense-floor', 'project');
  fs.rmSync(channel, { recursive: true, force: true });
  generate(channel, { facts: 300, seed: 42 });
  const para = fs
    .readFileSync(path.join(channel, 'paraphrases.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).query);
  const direct = fs
    .readFileSync(path.join(channel, 'questions.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).query);

  /** @param {string} dir @param {string[]} qs */
  async function best(dir, qs) {
    const index = createRecall().indexOf({ channelDirs: [dir] });
    await vectors.indexAll(index);
    await vectors.idle();
    const qv = await embedder.embed(qs, { priority: 'query' });
    return qv.map((v) => Math.max(...Array.from(vectors.cosines(index, v)).filter((x) => !Number.isNaN(x))));
  }
  const chatBest = await best(channel, chat);
  const paraBest = await best(channel, para);
  const directBest = await best(channel, direct);
  const locomo = [];
  for (const c of ['conv-26', 'conv-30']) locomo.push(...(await best(path.join(__dirname, 'data', 'locomo-dev', 'channels', c), chat)));
  const q = (/** @type {number[]} */ xs, /** @type {number} */ p) => {
    const sorted = xs.slice().sort((a, b) => a - b);
    return sorted[Math.min(xs.length - 1, Math.floor(p * xs.length))].toFixed(3);
  };
  console.log(`# dense floor calibration, ${new Date().toISOString().slice(0, 10)}, model ${embedder.id}`);
  console.log('| set | n | p10 | p50 | p90 | max |\n|---|---:|---:|---:|---:|---:|');
  for (const [name, xs] of /** @type {[string, number[]][]} */ ([
    ['chat lines → project', chatBest],
    ['chat lines → LoCoMo (both)', locomo],
    ['paraphrased questions → project', paraBest],
    ['direct questions → project', directBest],
  ])) {
    console.log(`| ${name} | ${xs.length} | ${q(xs, 0.1)} | ${q(xs, 0.5)} | ${q(xs, 0.9)} | ${Math.max(...xs).toFixed(3)} |`);
  }
  console.log('\n| floor | chat silent (project) | chat silent (LoCoMo) | paraphrases over the floor |\n|---:|---:|---:|---:|');
  for (const f of [0.35, 0.4, 0.42, 0.45, 0.5, 0.55, 0.6]) {
    const share = (/** @type {number[]} */ xs, /** @type {boolean} */ below) => (xs.filter((x) => (below ? x < f : x >= f)).length / xs.length).toFixed(3);
    console.log(`| ${f} | ${share(chatBest, true)} | ${share(locomo, true)} | ${share(paraBest, false)} |`);
  }
  await embedder.close();
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
