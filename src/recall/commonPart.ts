/**
 * What every text shares in an embedder's space, and cosines without it. A sentence model places all
 * texts around one common vector (the packaged model's null lines: their mean has length 0.58, and
 * two unrelated texts a cosine of 0.33 on average) and spreads them most along a few directions (the
 * null's two strongest carry 18 % of its spread). Comparing a message with the channel and with
 * generic technical messages on what remains once the null's mean and strongest directions are taken
 * away asks which of the two it is *about* ("all but the top": Mu and Viswanath, ICLR 2018).
 *
 * Pure. The common part is learned from the shipped null (nullChat.ts, nullTech.ts) as the active
 * embedder places it, so it belongs to that embedder like the calibration does. A line's part along
 * it is a few numbers (`residualOf`), so a cosine without the common part costs the raw dot product
 * and a few multiplications: no second copy of the channel's vectors.
 */
export interface CommonPart {
  /** The null's mean vector. */
  center: Float64Array;
  /** center · center. */
  centerSq: number;
  /** The strongest directions of the null around its mean, orthonormal, strongest first. */
  directions: Float64Array[];
}

/**
 * How many of the null's strongest directions are taken away. Why 2: on the six young technical
 * channels (bench/recall-young.js), choosing it and the technical margins together by leaving one
 * channel out (0 = the mean only, 2, 3, or raw cosines), every fold picks 2; see RecallTuning.techMargin.
 */
export const COMMON_DIRECTIONS = 2;

/** Power iteration: enough for the null's leading directions to settle to ~1e-9 (they are well apart). */
const MAX_ITERATIONS = 300;
const SETTLED = 1e-12;

export function commonPartOf(vectors: readonly Float32Array[], count = COMMON_DIRECTIONS): CommonPart {
  const n = vectors.length;
  const dims = n ? vectors[0].length : 0;
  const center = new Float64Array(dims);
  for (const v of vectors) for (let k = 0; k < dims; k++) center[k] += v[k] / n;
  // The null around its mean, deflated direction by direction.
  const rows = vectors.map((v) => {
    const r = new Float64Array(dims);
    for (let k = 0; k < dims; k++) r[k] = v[k] - center[k];
    return r;
  });
  const directions: Float64Array[] = [];
  for (let d = 0; d < count && n > 1; d++) {
    const u = leadingDirection(rows, dims);
    if (!u) break;
    directions.push(u);
    for (const r of rows) {
      const s = dotF64(r, u);
      for (let k = 0; k < dims; k++) r[k] -= s * u[k];
    }
  }
  return { center, centerSq: dotF64(center, center), directions };
}

/** The unit vector along which `rows` spread most (undefined when they do not spread). Deterministic. */
function leadingDirection(rows: Float64Array[], dims: number): Float64Array | undefined {
  // Start from the row that reaches farthest: never orthogonal to the leading direction in practice.
  let start = rows[0];
  for (const r of rows) if (dotF64(r, r) > dotF64(start, start)) start = r;
  let u = unit(Float64Array.from(start));
  if (!u) return undefined;
  for (let it = 0; it < MAX_ITERATIONS; it++) {
    const w = new Float64Array(dims);
    for (const r of rows) {
      const s = dotF64(r, u);
      for (let k = 0; k < dims; k++) w[k] += s * r[k];
    }
    const next = unit(w);
    if (!next) return undefined;
    let change = 0;
    for (let k = 0; k < dims; k++) change += (next[k] - u[k]) ** 2;
    u = next;
    if (change < SETTLED) break;
  }
  return u;
}

/** How many numbers `residualOf` writes per vector. */
export function residualSize(common: CommonPart): number {
  return common.directions.length + 2;
}

/**
 * A vector's part along the common part: [v·center, (v−center)·direction₁, …, |residual|], where the
 * residual is v without the center and without its parts along the directions; written into `out`
 * at `at` (a channel's lines share one array).
 */
export function residualOf(v: Float32Array, common: CommonPart, out: Float64Array = new Float64Array(residualSize(common)), at = 0): Float64Array {
  const m = common.directions.length;
  let vv = 0;
  let vc = 0;
  for (let k = 0; k < v.length; k++) {
    vv += v[k] * v[k];
    vc += v[k] * common.center[k];
  }
  out[at] = vc;
  let sq = vv - 2 * vc + common.centerSq;
  for (let j = 0; j < m; j++) {
    const u = common.directions[j];
    let a = 0;
    for (let k = 0; k < v.length; k++) a += (v[k] - common.center[k]) * u[k];
    out[at + j + 1] = a;
    sq -= a * a;
  }
  out[at + m + 1] = Math.sqrt(Math.max(0, sq));
  return out;
}

/**
 * The cosine of two vectors without the common part, from their raw dot product and their residuals
 * (`a`'s at `aAt`).
 */
export function residualCosine(rawDot: number, a: Float64Array, b: Float64Array, common: CommonPart, aAt = 0): number {
  const m = common.directions.length;
  const norms = a[aAt + m + 1] * b[m + 1];
  if (!(norms > 0)) return 0;
  let d = rawDot - a[aAt] - b[0] + common.centerSq;
  for (let j = 1; j <= m; j++) d -= a[aAt + j] * b[j];
  return d / norms;
}

/** The vector without the common part, at unit length: for the null's own lines, compared many times. */
export function withoutCommon(v: Float32Array, common: CommonPart): Float32Array {
  const y = new Float64Array(v.length);
  for (let k = 0; k < v.length; k++) y[k] = v[k] - common.center[k];
  for (const u of common.directions) {
    const s = dotF64(y, u);
    for (let k = 0; k < y.length; k++) y[k] -= s * u[k];
  }
  const n = Math.sqrt(dotF64(y, y));
  const out = new Float32Array(v.length);
  if (n > 0) for (let k = 0; k < v.length; k++) out[k] = y[k] / n;
  return out;
}

function unit(v: Float64Array): Float64Array | undefined {
  const n = Math.sqrt(dotF64(v, v));
  if (!(n > 0)) return undefined;
  for (let k = 0; k < v.length; k++) v[k] /= n;
  return v;
}

function dotF64(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let k = 0; k < a.length; k++) s += a[k] * b[k];
  return s;
}
