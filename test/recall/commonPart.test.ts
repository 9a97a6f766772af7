import fc from 'fast-check';
import { commonPartOf, residualCosine, residualOf, withoutCommon } from '../../src/recall/commonPart';

/**
 * What every text shares in an embedder's space (commonPart.ts): the null's mean and strongest
 * directions are found, and a cosine without them is computed from the raw dot product and a few
 * numbers per vector, equal to the cosine of the vectors with the common part taken away.
 */
const DIMS = 16;

function unitVector(xs: number[]): Float32Array {
  const n = Math.sqrt(xs.reduce((s, x) => s + x * x, 0)) || 1;
  return Float32Array.from(xs, (x) => x / n);
}

const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  for (let k = 0; k < a.length; k++) s += a[k] * b[k];
  return s;
};

/** Texts around one center, spread far along `along`, a little along `second`, and barely otherwise. */
function planted(): { vectors: Float32Array[]; along: number[]; second: number[] } {
  const along = Array.from({ length: DIMS }, (_, k) => (k === 3 ? 1 : 0));
  const second = Array.from({ length: DIMS }, (_, k) => (k === 7 ? 1 : 0));
  const vectors: Float32Array[] = [];
  for (let i = 0; i < 60; i++) {
    const big = Math.sin(i * 1.7) * 3;
    const mid = Math.cos(i * 2.3) * 1;
    vectors.push(Float32Array.from({ length: DIMS }, (_, k) => 0.5 + big * along[k] + mid * second[k] + Math.sin(i * 31 + k * 7) * 0.05));
  }
  return { vectors, along, second };
}

test('the strongest directions of the null are found, strongest first, and are orthonormal', () => {
  const { vectors, along, second } = planted();
  const common = commonPartOf(vectors, 2);
  expect(common.directions).toHaveLength(2);
  expect(Math.abs(dot(common.directions[0], along))).toBeGreaterThan(0.99);
  expect(Math.abs(dot(common.directions[1], second))).toBeGreaterThan(0.99);
  expect(Math.abs(dot(common.directions[0], common.directions[1]))).toBeLessThan(1e-6);
  for (const u of common.directions) expect(dot(u, u)).toBeCloseTo(1, 9);
  const mean = Array.from({ length: DIMS }, (_, k) => vectors.reduce((s, v) => s + v[k], 0) / vectors.length);
  for (let k = 0; k < DIMS; k++) expect(common.center[k]).toBeCloseTo(mean[k], 6);
});

test('the same null gives the same common part', () => {
  const { vectors } = planted();
  const a = commonPartOf(vectors, 2);
  const b = commonPartOf(
    vectors.map((v) => Float32Array.from(v)),
    2,
  );
  expect(Array.from(b.center)).toEqual(Array.from(a.center));
  expect(b.directions.map((u) => Array.from(u))).toEqual(a.directions.map((u) => Array.from(u)));
});

test('a cosine from the raw dot product and the residuals equals the cosine of the vectors without the common part', () => {
  const { vectors } = planted();
  const common = commonPartOf(vectors, 2);
  const vec = fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: DIMS, maxLength: DIMS }).map(unitVector);
  fc.assert(
    fc.property(vec, vec, (a, b) => {
      const viaResiduals = residualCosine(dot(a, b), residualOf(a, common), residualOf(b, common), common);
      const explicit = dot(withoutCommon(a, common), withoutCommon(b, common));
      expect(viaResiduals).toBeCloseTo(explicit, 4);
    }),
  );
});

test('with no spread there is no direction, and a vector equal to the center compares as 0, never NaN', () => {
  const same = Array.from({ length: 5 }, () => unitVector([1, 2, 3, 4]));
  const common = commonPartOf(same, 2);
  expect(common.directions).toEqual([]);
  const r = residualOf(same[0], common);
  expect(residualCosine(dot(same[0], same[0]), r, r, common)).toBe(0);
  expect(Array.from(withoutCommon(same[0], common))).toEqual([0, 0, 0, 0]);
});
