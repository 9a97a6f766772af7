#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. `node bench/load.js --cpu-prof`):
 * self time per function and per package/area, top N.
 *
 *   node bench/load-profile.js FILE.cpuprofile [--top 25] [--callers]
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/** Where a script lives: the project's dist/src, a test fake, a package in node_modules, or node. */
function areaOf(url) {
  if (!url) return '(native/V8)';
  const p = url.replace(/^file:\/\//, '');
  const nm = p.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = p.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (p.startsWith('node:')) return 'node:internal';
  const rel = path.relative(root, p);
  if (rel.startsWith('dist/')) return `minutes ${rel.split('/').slice(0, 2).join('/')}`;
  if (rel.startsWith('test/fakes/')) return `fakes ${rel.split('/')[2]}`;
  if (rel.startsWith('bench/')) return 'bench';
  if (rel.startsWith('..')) return p;
  return rel;
}

/**
 * @param {string} file
 * @param {number} top
 * @param {boolean} withCallers
 */
function summarise(file, top = 25, withCallers = false) {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = prof.timeDeltas;
  for (let i = 0; i < prof.samples.length; i++) self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + (dt[i] ?? 0));
  const total = [...self.values()].reduce((s, x) => s + x, 0);
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n) => {
    const cf = n.callFrame;
    const where = cf.url ? `${path.relative(root, cf.url.replace(/^file:\/\//, ''))}:${cf.lineNumber + 1}` : '';
    return `${cf.functionName || '(anonymous)'} ${where}`.trim();
  };
  /** nearest caller outside node internals and fs natives, per function key */
  const callers = new Map();
  const fns = new Map();
  const areas = new Map();
  for (const [id, us] of self) {
    const n = byId.get(id);
    const cf = n.callFrame;
    const name = cf.functionName || '(anonymous)';
    const where = cf.url ? `${path.relative(root, cf.url.replace(/^file:\/\//, ''))}:${cf.lineNumber + 1}` : '';
    const key = `${name} ${where}`.trim();
    fns.set(key, (fns.get(key) ?? 0) + us);
    let up = parent.get(id);
    const chain = [];
    while (up !== undefined && chain.length < 3) {
      const pn = byId.get(up);
      const u = pn.callFrame.url;
      if (u && !u.startsWith('node:') && !/graceful-fs|universalify/.test(u)) chain.push(label(pn));
      up = parent.get(up);
    }
    if (!callers.has(key)) callers.set(key, new Map());
    const ck = chain.join(' ← ') || '(top)';
    callers.get(key).set(ck, (callers.get(key).get(ck) ?? 0) + us);
    const area = ['(idle)', '(program)', '(garbage collector)'].includes(name) ? name : areaOf(cf.url);
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  const pct = (us) => `${((100 * us) / total).toFixed(1)}%`;
  const lines = [`${path.basename(file)}: ${(total / 1e6).toFixed(2)} s sampled`];
  lines.push('', 'self time by area:');
  for (const [k, us] of [...areas].sort((a, b) => b[1] - a[1]).slice(0, top))
    lines.push(`  ${pct(us).padStart(6)}  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
  lines.push('', 'self time by function:');
  for (const [k, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`  ${pct(us).padStart(6)}  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
    if (withCallers) {
      for (const [c, cus] of [...(callers.get(k) ?? new Map())].sort((a, b) => b[1] - a[1]).slice(0, 2)) {
        lines.push(`                      ${(cus / 1000).toFixed(0).padStart(5)} ms ← ${c}`);
      }
    }
  }
  return lines.join('\n');
}

module.exports = { summarise };

if (require.main === module) {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith('--'));
  const topAt = args.indexOf('--top');
  if (!file) {
    console.error('usage: node bench/load-profile.js FILE.cpuprofile [--top N]');
    process.exit(2);
  }
  console.log(summarise(file, topAt >= 0 ? Number(args[topAt + 1]) : 25, args.includes('--callers')));
}
