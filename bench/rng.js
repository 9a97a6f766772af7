// @ts-check
'use strict';
/** A small seeded PRNG (xorshift32) so generated bench data is the same on every run. */
/** @param {number} seed @returns {() => number} a number in [0, 1) */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}
/** FNV-1a: a stable hash for deterministic choices (the same text always picks the same answer). @param {string} s */
function fnv1a(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
/** mulberry32: the resampling generator of the paired bootstraps. @param {number} seed @returns {() => number} */
function mulberry32(seed) {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let x = t;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
/**
 * Paired bootstrap of a mean difference (2,000 resamples, seed 42): [mean, lo, hi], the 95 % interval.
 * @param {number[]} d per-question differences
 */
function pairedBootstrap(d) {
  const rand = mulberry32(42);
  const means = [];
  for (let r = 0; r < 2000; r++) {
    let s = 0;
    for (let i = 0; i < d.length; i++) s += d[Math.floor(rand() * d.length)];
    means.push(s / d.length);
  }
  means.sort((x, y) => x - y);
  return [d.reduce((x, y) => x + y, 0) / d.length, means[49], means[1949]];
}
module.exports = { rng, fnv1a, mulberry32, pairedBootstrap };
