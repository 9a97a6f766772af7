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
module.exports = { rng, fnv1a };
