#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Leave-one-conversation-out for recall's rules and knobs, on the four LoCoMo dev conversations.
 *
 * For each rule: its value is picked from a small grid (which includes the rule switched off) as the
 * one with the best mean evidence recall (1,000 / 2,000 / 4,000 characters together) on three
 * conversations, and scored on the fourth, all four ways. Reported per fold and pooled: the held-out
 * difference against the rule switched off, with a paired bootstrap 95 % interval over the held-out
 * questions of all four folds. A rule earns its place when that interval excludes zero (above it).
 * The same run scores plain BM25, stemmed BM25 (score.py's baselines, same scorer) and a plain
 * BM25 + sentence-model weighted sum (the standard hybrid, its weight picked the same LOO way).
 *
 * Usage: npm run build && node bench/recall-loo.js [--semantic local|off] [--only name ...]
 *   [--budgets 1000 2000 4000] [--no-baselines]
 * Vectors come from bench/out/vectors (questions' vectors are memoised per run). Writes only under
 * bench/out/recall-loo.
 */
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { pairedBootstrap } = require('./rng');
const root = path.resolve(__dirname, '..');
const data = path.join(root, 'bench', 'data', 'locomo-dev');
const channelsDir = path.join(data, 'channels');
const outDir = path.join(root, 'bench', 'out', 'recall-loo');
fs.mkdirSync(outDir, { recursive: true });

const argv = process.argv.slice(2);
/** @param {string} flag */
const list = (flag) => {
  const i = argv.indexOf(flag);
  if (i < 0) return undefined;
  const out = [];
  for (let j = i + 1; j < argv.length && !argv[j].startsWith('--'); j++) out.push(argv[j]);
  return out;
};
const semantic = (list('--semantic') ?? ['local'])[0];
const budgets = (list('--budgets') ?? ['1000', '2000', '4000']).map(Number);
const only = list('--only');
const baselines = !argv.includes('--no-baselines');

// ---------------------------------------------------------------- the dev set and its scorer (score.py's `recall`)

const BULLET_RE = /^\s*[-*]\s+(.*?)\s*(\[from:[^\]]*\])\s*$/;
const DIA_RE = /D:?(\d+):0*(\d+)/g;
const normWs = (/** @type {string} */ s) => s.split(/\s+/).filter(Boolean).join(' ');
const convs = fs
  .readdirSync(channelsDir)
  .filter((d) => fs.existsSync(path.join(channelsDir, d, 'questions.jsonl')))
  .sort();
/** @type {{conv: string, dir: string, bullets: {line: string, body: string}[], byId: Map<string, number[]>}[]} */
const channels = [];
/** @type {{conv: number, id: string, question: string, now: Date, evidence: string[], category: number}[]} */
const questions = [];
for (const [ci, conv] of convs.entries()) {
  const dir = path.join(channelsDir, conv);
  const bullets = [];
  const byId = new Map();
  for (const line of fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8').split('\n')) {
    const m = BULLET_RE.exec(line);
    if (!m) continue;
    for (const [, a, b] of m[2].matchAll(DIA_RE)) {
      const id = `D${Number(a)}:${Number(b)}`;
      if (!byId.has(id)) byId.set(id, []);
      byId.get(id).push(bullets.length);
    }
    bullets.push({ line: normWs(line.trim()), body: normWs(m[1]) });
  }
  channels.push({ conv, dir, bullets, byId });
  for (const l of fs.readFileSync(path.join(dir, 'questions.jsonl'), 'utf8').split('\n').filter(Boolean)) {
    const q = JSON.parse(l);
    if (!q.evidence.length) continue; // score.py leaves these out too
    questions.push({ conv: ci, id: q.id, question: q.question, now: new Date(`${q.asked_after}T00:00:00Z`), evidence: q.evidence, category: q.category });
  }
}
/** Share of the question's evidence turns whose observation text is wholly in `text`. @param {number} qi @param {string} text */
function evidenceRecall(qi, text) {
  const q = questions[qi];
  const ch = channels[q.conv];
  const norm = normWs(text);
  let hit = 0;
  for (const e of q.evidence) if ((ch.byId.get(e) ?? []).some((b) => norm.includes(ch.bullets[b].body))) hit++;
  return hit / q.evidence.length;
}

// ---------------------------------------------------------------- recall from a build of the code

/** A build of recall: dist/ itself, or a copy of it with one rule taken out of the source. */
const builds = new Map();
/** @param {string} name @param {(file: string, text: string) => string} [patch] */
function build(name, patch) {
  if (builds.has(name)) return builds.get(name);
  let dist = path.join(root, 'dist');
  if (patch) {
    dist = path.join(outDir, `dist-${name}`);
    fs.rmSync(dist, { recursive: true, force: true });
    fs.cpSync(path.join(root, 'dist'), dist, { recursive: true });
    for (const f of fs.readdirSync(path.join(dist, 'recall'))) {
      const p = path.join(dist, 'recall', f);
      if (!f.endsWith('.js')) continue;
      const before = fs.readFileSync(p, 'utf8');
      const after = patch(f, before);
      if (after !== before) fs.writeFileSync(p, after);
    }
  }
  const req = (/** @type {string} */ rel) => require(path.join(dist, rel));
  const b = {
    createRecall: req('recall/lexical.js').createRecall,
    createTunedRecall: req('recall/lexical.js').createTunedRecall,
    DEFAULT_TUNING: req('recall/tuning.js').DEFAULT_TUNING,
    createRecallService: req('recall/service.js').createRecallService,
    CandidateVectors: req('recall/vectors.js').CandidateVectors,
    VectorCache: req('embed/vectorCache.js').VectorCache,
  };
  builds.set(name, b);
  return b;
}

const { silentLogger } = require(path.join(root, 'dist', 'log', 'logger.js'));
const logger = silentLogger();
/** @type {any} */ let embedder;
if (semantic === 'local') {
  const { WorkerEmbedder } = require(path.join(root, 'dist', 'embed', 'workerEmbedder.js'));
  const inner = new WorkerEmbedder({ logger });
  const memo = new Map();
  // Every configuration asks the same questions: each is embedded once per run.
  embedder = {
    id: inner.id,
    async embed(/** @type {string[]} */ texts, /** @type {any} */ opts) {
      if (opts?.priority !== 'query') return inner.embed(texts, opts);
      const key = texts.join('\u0000');
      if (!memo.has(key)) memo.set(key, await inner.embed(texts, { priority: 'query' }));
      return memo.get(key);
    },
    close: () => inner.close(),
  };
}
/** Vectors per build (each build's own classes), sharing the embedder. */
const vectorsOf = new Map();
function vectorsFor(/** @type {string} */ name, /** @type {any} */ b) {
  if (!embedder) return undefined;
  if (!vectorsOf.has(name)) {
    const cache = new b.VectorCache({ dir: path.join(root, 'bench', 'out', 'vectors'), modelId: embedder.id, logger });
    vectorsOf.set(name, new b.CandidateVectors({ embedder, cache, logger }));
  }
  return vectorsOf.get(name);
}

/** Per budget, per question: evidence recall of one configuration. @type {Map<string, number[][]>} */
const results = new Map();
/** @param {{build?: string, patch?: (f: string, t: string) => string, tuning?: object}} cfg */
async function run(cfg) {
  const name = cfg.build ?? 'dist';
  const key = `${name} ${JSON.stringify(cfg.tuning ?? {})}`;
  if (results.has(key)) return /** @type {number[][]} */ (results.get(key));
  const b = build(name, cfg.patch);
  const vectors = vectorsFor(name, b);
  const service = b.createRecallService({
    lexical: b.createTunedRecall({ ...b.DEFAULT_TUNING, ...(cfg.tuning ?? {}) }),
    embedder,
    vectors,
    logger,
    queryTimeoutMs: 60_000,
  });
  for (const ch of channels) await service.indexAll({ channelDirs: [ch.dir] });
  const out = budgets.map(() => new Array(questions.length).fill(0));
  for (const [qi, q] of questions.entries()) {
    for (const [bi, budgetChars] of budgets.entries()) {
      const res = await service.recall({ channelDirs: [channels[q.conv].dir], query: q.question, now: q.now, budgetChars });
      out[bi][qi] = evidenceRecall(qi, res.text);
    }
  }
  results.set(key, out);
  return out;
}

// ---------------------------------------------------------------- leave one conversation out

const mean = (/** @type {number[]} */ xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
/** Mean over budgets of the mean recall on the questions of `convSet`. @param {number[][]} r @param {Set<number>} convSet */
function fitness(r, convSet) {
  return mean(r.map((per) => mean(per.filter((_, qi) => convSet.has(questions[qi].conv)))));
}
/** Paired bootstrap of a mean difference: [mean, lo, hi]. @param {number[]} d */
const boot = pairedBootstrap;
const sgn = (/** @type {number} */ x) => (x >= 0 ? '+' : '') + x.toFixed(3);

/**
 * LOO for one rule: `grid[0]` is the rule switched off. Returns, per budget, the held-out recall of
 * the picked values, the pooled difference against off and its interval, and the picks per fold.
 * @param {number[][][]} grid results per grid value
 */
function loo(grid) {
  const picks = [];
  const held = budgets.map(() => new Array(questions.length).fill(0));
  for (let f = 0; f < convs.length; f++) {
    const train = new Set(convs.map((_, i) => i).filter((i) => i !== f));
    let best = 0;
    // Ties keep the earlier (simpler) value: off first.
    for (let g = 1; g < grid.length; g++) if (fitness(grid[g], train) > fitness(grid[best], train) + 1e-9) best = g;
    picks.push(best);
    for (let bi = 0; bi < budgets.length; bi++) for (let qi = 0; qi < questions.length; qi++) if (questions[qi].conv === f) held[bi][qi] = grid[best][bi][qi];
  }
  const perBudget = budgets.map((_, bi) => {
    const d = held[bi].map((x, qi) => x - grid[0][bi][qi]);
    const folds = convs.map((_, f) => mean(d.filter((_, qi) => questions[qi].conv === f)));
    return { recall: mean(held[bi]), off: mean(grid[0][bi]), diff: boot(d), folds };
  });
  return { picks, perBudget };
}

// ---------------------------------------------------------------- the rules

/** Text patch: drop `words` from the template string that starts with `start` in `file`. */
function dropWords(/** @type {string} */ file, /** @type {string} */ start, /** @type {string[]} */ words) {
  return (/** @type {string} */ f, /** @type {string} */ text) => {
    if (f !== file) return text;
    const i = text.indexOf(start);
    if (i < 0) throw new Error(`${file}: ${start} not found`);
    const j = text.indexOf('`', i + start.length);
    const body = text
      .slice(i + start.length, j)
      .split(/(\s+)/)
      .filter((w) => !words.includes(w))
      .join('');
    return text.slice(0, i + start.length) + body + text.slice(j);
  };
}

/** @type {{name: string, what: string, grid: {label?: string, build?: string, patch?: any, tuning?: object}[]}[]} */
const RULES = require('./recall-loo-rules').rules({ dropWords });

async function main() {
  const t0 = Date.now();
  const chosen = only ? RULES.filter((r) => only.includes(r.name)) : RULES;
  const rows = [];
  const fmt = (/** @type {any} */ pb) => `${pb.recall.toFixed(3)} ${sgn(pb.diff[0])} [${sgn(pb.diff[1])}, ${sgn(pb.diff[2])}]`;
  const header = `rule | ${budgets.map((b) => `${b}: held-out, vs off [95 %]`).join(' | ')} | folds at 2,000 (${convs.join(', ')}) | picks`;
  console.log(`# recall LOO, --semantic ${semantic}, ${questions.length} questions, ${convs.length} folds`);
  const def = await run({});
  console.log(`defaults: ${budgets.map((_, bi) => mean(def[bi]).toFixed(3)).join(' / ')}  (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  console.log(header);
  for (const rule of chosen) {
    const grid = [];
    for (const cfg of rule.grid) grid.push(await run(cfg));
    const r = loo(grid);
    const b2 = budgets.indexOf(2000) >= 0 ? budgets.indexOf(2000) : 0;
    const line = `${rule.name} | ${r.perBudget.map(fmt).join(' | ')} | ${r.perBudget[b2].folds.map(sgn).join(' ')} | ${r.picks.map((p) => rule.grid[p].label ?? p).join(',')}`;
    console.log(line);
    rows.push({ rule: rule.name, what: rule.what, ...r });
  }
  if (baselines) for (const l of await baselineRows(def)) console.log(l);
  fs.writeFileSync(path.join(outDir, `loo-${semantic}.json`), JSON.stringify(rows, null, 1));
  console.log(`(${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  if (embedder) await embedder.close();
}

// ---------------------------------------------------------------- baselines

/** score.py's plain BM25 and stemmed BM25, scored here; a BM25 + cosine weighted sum, weight by LOO. @param {number[][]} def */
async function baselineRows(def) {
  const lines = [];
  const fmtB = (/** @type {number[][]} */ r) => budgets.map((_, bi) => mean(r[bi]).toFixed(3)).join(' / ');
  for (const stem of [false, true]) {
    const dir = path.join(outDir, stem ? 'bm25-stem' : 'bm25');
    fs.mkdirSync(dir, { recursive: true });
    const args = [path.join(data, 'score.py'), channelsDir, '--bm25', '--budgets', ...budgets.map(String), '--write-recall', dir, ...(stem ? ['--stem'] : [])];
    const s = spawnSync('python3', args, { encoding: 'utf8' });
    if (s.status !== 0) throw new Error(s.stderr);
    const r = budgets.map((budget) => {
      const got = new Map(
        fs
          .readFileSync(path.join(dir, `bm25_budget${budget}.jsonl`), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .map((x) => [x.id, x.recalled_text]),
      );
      return questions.map((q, qi) => evidenceRecall(qi, got.get(q.id) ?? ''));
    });
    lines.push(`${stem ? 'stemmed BM25' : 'BM25'}: ${fmtB(r)}; default recall minus it: ${budgets.map((_, bi) => fmtDiff(def[bi], r[bi])).join(' / ')}`);
  }
  if (embedder) {
    const grid = [];
    const weights = [0, 0.2, 0.4, 0.5, 0.6, 0.8];
    for (const w of weights) grid.push(await hybrid(w));
    const r = loo(grid);
    const held = r.perBudget.map((pb) => pb.recall.toFixed(3)).join(' / ');
    const d = budgets.map((_, bi) => {
      const h = new Array(questions.length).fill(0);
      for (let qi = 0; qi < questions.length; qi++) h[qi] = grid[r.picks[questions[qi].conv]][bi][qi];
      return fmtDiff(def[bi], h);
    });
    lines.push(`BM25 + cosine (weight of cosine by LOO: ${r.picks.map((p) => weights[p]).join(',')}): ${held}; default recall minus it: ${d.join(' / ')}`);
  }
  return lines;
}
/** @param {number[]} a @param {number[]} b */
function fmtDiff(a, b) {
  const x = boot(a.map((v, i) => v - b[i]));
  return `${sgn(x[0])} [${sgn(x[1])}, ${sgn(x[2])}]`;
}

const hybridCache = new Map();
/** BM25 (score.py's, unstemmed) min-max normalised, plus `w` × cosine (of the same bullets), greedy fill. @param {number} w */
async function hybrid(w) {
  const b = build('dist');
  const vectors = vectorsFor('dist', b);
  const lex = b.createRecall({});
  const out = budgets.map(() => new Array(questions.length).fill(0));
  for (const [ci, ch] of channels.entries()) {
    if (!hybridCache.has(ci)) {
      const index = lex.indexOf({ channelDirs: [ch.dir] });
      await vectors.indexAll(index);
      const byText = new Map();
      index.cands.forEach((/** @type {any} */ c, /** @type {number} */ i) => byText.set(normWs(c.text), i));
      const candOf = ch.bullets.map((bl) => byText.get(bl.line) ?? byText.get(bl.line.replace(/^[-*]\s+/, '')) ?? -1);
      hybridCache.set(ci, { index, candOf, bm: bm25(ch.bullets.map((bl) => toks(bl.body))) });
    }
    const { index, candOf, bm } = hybridCache.get(ci);
    for (const [qi, q] of questions.entries()) {
      if (q.conv !== ci) continue;
      const lexS = bm(toks(q.question));
      const [qv] = await embedder.embed([q.question], { priority: 'query' });
      const cos = vectors.cosines(index, qv);
      const maxL = Math.max(...lexS, 1e-9);
      const sc = ch.bullets.map((_, i) => (1 - w) * (lexS[i] / maxL) + w * (candOf[i] >= 0 && !Number.isNaN(cos[candOf[i]]) ? cos[candOf[i]] : 0));
      const order = sc
        .map((s, i) => [s, i])
        .filter(([s]) => s > 0)
        .sort((x, y) => y[0] - x[0] || x[1] - y[1])
        .map(([, i]) => i);
      for (const [bi, budget] of budgets.entries()) {
        const chosen = [];
        let used = 0;
        for (const i of order) {
          const cost = ch.bullets[i].line.length + (chosen.length ? 1 : 0);
          if (used + cost <= budget) {
            chosen.push(ch.bullets[i].line);
            used += cost;
          }
        }
        out[bi][qi] = evidenceRecall(qi, chosen.join('\n'));
      }
    }
  }
  return out;
}
const STOP = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by can could did do does doing down during each few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours ourselves out over own same she should so some such than that the their theirs them themselves then there these they this those through to too under until up very was we were what when where which while who whom why will with would you your yours yourself yourselves s t don didn doesn isn wasn weren won wouldn shouldn couldn ll re ve d m o y`.split(
    ' ',
  ),
);
/** score.py's tokenizer (unstemmed). @param {string} text */
function toks(text) {
  return (
    text
      .toLowerCase()
      .replace(/'s /g, ' ')
      .replace(/\u2019s /g, ' ')
      .match(/[a-z0-9]+/g) ?? []
  ).filter((t) => !STOP.has(t));
}
/** Okapi BM25 as score.py computes it. @param {string[][]} docs */
function bm25(docs) {
  const tfs = docs.map((d) => {
    const m = new Map();
    for (const t of d) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  });
  const avgdl = mean(docs.map((d) => d.length));
  const df = new Map();
  for (const tf of tfs) for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const n = docs.length;
  return (/** @type {string[]} */ q) =>
    tfs.map((tf, i) => {
      let s = 0;
      for (const t of new Set(q)) {
        const f = tf.get(t);
        if (f) s += Math.log(1 + (n - df.get(t) + 0.5) / (df.get(t) + 0.5)) * ((f * 2.2) / (f + 1.2 * (0.25 + (0.75 * docs[i].length) / avgdl)));
      }
      return s;
    });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
