import fs from 'node:fs';
import path from 'node:path';

/**
 * Vectors the package ships for one model: the recall null's lines (src/recall/nullChat.ts and
 * nullTech.ts) as the packaged sentence model places them, made by `npm run null-vectors`. Without
 * them every new data root, and every first `minutes recall`, would embed those ~500 lines before
 * meaning can judge anything (about 7 s on two cores). They are the model's own vectors, not a
 * tuning: a file for another model, or for another list of lines, is ignored and the lines are
 * embedded as usual.
 *
 * File: 4 bytes (the header's length, little-endian), a JSON header `{modelId, digest, dims, count}`,
 * then `count × dims` little-endian float32s.
 */
export interface PackagedVectors {
  modelId: string;
  /** Names the list of texts the vectors are for (the caller's digest of their hashes). */
  digest: string;
  vectors: Float32Array[];
}

const DIR = path.join(__dirname, '..', '..', 'assets', 'vectors');

export function packagedVectorsFile(name: string, modelId: string): string {
  return path.join(DIR, `${name}.${modelId.replace(/[^A-Za-z0-9._-]+/g, '_')}.bin`);
}

/** The shipped vectors of `name` for `modelId`, or undefined when none ship (or the file is unreadable). */
export function readPackagedVectors(name: string, modelId: string): PackagedVectors | undefined {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(packagedVectorsFile(name, modelId));
  } catch {
    return undefined;
  }
  try {
    const headerLen = buf.readUInt32LE(0);
    const header = JSON.parse(buf.subarray(4, 4 + headerLen).toString('utf8')) as { modelId: string; digest: string; dims: number; count: number };
    const start = 4 + headerLen;
    if (header.modelId !== modelId || buf.length !== start + header.count * header.dims * 4) return undefined;
    const vectors: Float32Array[] = [];
    for (let i = 0; i < header.count; i++) {
      const v = new Float32Array(header.dims);
      for (let k = 0; k < header.dims; k++) v[k] = buf.readFloatLE(start + (i * header.dims + k) * 4);
      vectors.push(v);
    }
    return { modelId, digest: header.digest, vectors };
  } catch {
    return undefined;
  }
}

/** The file `readPackagedVectors` reads (for the script that makes it). */
export function encodePackagedVectors(p: PackagedVectors): Buffer {
  const dims = p.vectors[0]?.length ?? 0;
  const header = Buffer.from(JSON.stringify({ modelId: p.modelId, digest: p.digest, dims, count: p.vectors.length }), 'utf8');
  const out = Buffer.alloc(4 + header.length + p.vectors.length * dims * 4);
  out.writeUInt32LE(header.length, 0);
  header.copy(out, 4);
  p.vectors.forEach((v, i) => v.forEach((x, k) => out.writeFloatLE(x, 4 + header.length + (i * dims + k) * 4)));
  return out;
}
