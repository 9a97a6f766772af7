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
module.exports = { rng };
