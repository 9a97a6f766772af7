/**
 * How an embedder's cosines spread for texts that have nothing to do with each other: the mean and
 * standard deviation of the cosines between the product's null lines (everyday chat and generic
 * technical messages, nullChat.ts and nullTech.ts), as this embedder places them. Every similarity
 * threshold of recall, search, drift notes and packages is stated in these units (how many of the
 * null's standard deviations above its mean), never as a raw cosine: one model's 0.4 is another's
 * 0.8, and a threshold fitted to the packaged model would mean nothing on an embeddings API.
 *
 * Pure, and cheap enough to compute once per embedder per process (~130,000 dot products, some
 * 50 ms); the null lines' vectors themselves sit in the vector cache, keyed by the model's id.
 */
export interface Calibration {
  /** Mean cosine of two unrelated texts. */
  mean: number;
  /** Their standard deviation (at least a small positive number). */
  sd: number;
}

/** Below this, every pair looks the same: a degenerate embedder (or a test's) still gets a usable scale. */
const MIN_SD = 1e-3;

export function calibrate(vectors: readonly Float32Array[]): Calibration {
  let n = 0;
  let sum = 0;
  let sumSq = 0;
  for (let i = 0; i < vectors.length; i++) {
    const a = vectors[i];
    for (let j = i + 1; j < vectors.length; j++) {
      const b = vectors[j];
      let d = 0;
      for (let k = 0; k < a.length; k++) d += a[k] * b[k];
      n++;
      sum += d;
      sumSq += d * d;
    }
  }
  if (n === 0) return { mean: 0, sd: 1 };
  const mean = sum / n;
  return { mean, sd: Math.max(MIN_SD, Math.sqrt(Math.max(0, sumSq / n - mean * mean))) };
}

/** The cosine `z` of the null's standard deviations above its mean. */
export function cosineAt(cal: Calibration, z: number): number {
  return cal.mean + z * cal.sd;
}

/** A cosine in the null's standard deviations above its mean. */
export function meaningOf(cal: Calibration, cos: number): number {
  return (cos - cal.mean) / cal.sd;
}
