import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log/logger';

/**
 * Content-addressed vectors on disk, one pair of files per model: `<model>.json` (the model id and
 * dimensions) and `<model>.vec` (records of a 16-byte hash of the text, then the vector as float32).
 * A text's vector is looked up by the hash of the text under its model, so an edited line gets a new
 * vector, an unchanged one is never embedded twice (across restarts, channels and the recall
 * command), and a model change starts a new file. Memory files never hold vectors.
 *
 * Appends only: a record is one write, so a crash can leave at most one partial record at the end,
 * which the next load cuts off. Several processes (shards, the CLI beside the bot) may append to the
 * same file. Deleting the folder clears it; it is rebuilt in the background.
 */
export interface VectorCacheOptions {
  /** The cache folder; undefined keeps vectors in memory only. */
  dir?: string;
  modelId: string;
  logger: Logger;
}

const HASH_BYTES = 16;

export function textHash(text: string): string {
  return createHash('sha256')
    .update(text)
    .digest('hex')
    .slice(0, HASH_BYTES * 2);
}

export class VectorCache {
  private readonly map = new Map<string, Float32Array>();
  private dims = 0;
  private loaded = false;
  private writable: boolean;
  private chain: Promise<void> = Promise.resolve();
  private readonly vecFile: string | undefined;
  private readonly metaFile: string | undefined;

  constructor(private readonly o: VectorCacheOptions) {
    const key = createHash('sha256').update(o.modelId).digest('hex').slice(0, 16);
    this.vecFile = o.dir ? path.join(o.dir, `${key}.vec`) : undefined;
    this.metaFile = o.dir ? path.join(o.dir, `${key}.json`) : undefined;
    this.writable = !!o.dir;
  }

  get size(): number {
    this.load();
    return this.map.size;
  }

  get(hash: string): Float32Array | undefined {
    this.load();
    return this.map.get(hash);
  }

  /** Keeps the vectors at once; the disk write is queued (see flush). */
  putMany(entries: { hash: string; vector: Float32Array }[]): void {
    this.load();
    const fresh = entries.filter((e) => !this.map.has(e.hash) && (this.dims === 0 || e.vector.length === this.dims));
    if (fresh.length === 0) return;
    if (this.dims === 0) this.dims = fresh[0].vector.length;
    for (const e of fresh) this.map.set(e.hash, e.vector);
    if (!this.writable) return;
    const rec = HASH_BYTES + this.dims * 4;
    const buf = Buffer.alloc(rec * fresh.length);
    fresh.forEach((e, i) => {
      buf.write(e.hash, i * rec, HASH_BYTES, 'hex');
      Buffer.from(e.vector.buffer, e.vector.byteOffset, this.dims * 4).copy(buf, i * rec + HASH_BYTES);
    });
    this.chain = this.chain
      .then(() => this.append(buf))
      .catch((err: unknown) => {
        this.writable = false;
        this.o.logger.warn({ err, dir: this.o.dir }, 'cannot write the vector cache; vectors are kept in memory only');
      });
  }

  /** Resolves when every queued write has reached the file. */
  flush(): Promise<void> {
    return this.chain;
  }

  private async append(buf: Buffer): Promise<void> {
    await fs.promises.mkdir(this.o.dir!, { recursive: true });
    if (!fs.existsSync(this.metaFile!)) {
      await fs.promises.writeFile(this.metaFile!, JSON.stringify({ model: this.o.modelId, dims: this.dims }) + '\n');
    }
    await fs.promises.appendFile(this.vecFile!, buf);
  }

  private load(): void {
    if (this.loaded) return;
    this.loaded = true;
    if (!this.vecFile || !this.metaFile) return;
    try {
      if (!fs.existsSync(this.metaFile)) return;
      const meta = JSON.parse(fs.readFileSync(this.metaFile, 'utf8')) as { model?: unknown; dims?: unknown };
      if (meta.model !== this.o.modelId || typeof meta.dims !== 'number' || meta.dims <= 0) {
        this.o.logger.warn({ file: this.metaFile }, 'vector cache belongs to another model or is damaged; not using it');
        this.writable = false;
        return;
      }
      this.dims = meta.dims;
      if (!fs.existsSync(this.vecFile)) return;
      const data = fs.readFileSync(this.vecFile);
      const rec = HASH_BYTES + this.dims * 4;
      const whole = data.length - (data.length % rec);
      if (whole !== data.length) {
        // The tail of an append cut short by a crash: later appends must start on a record boundary.
        fs.truncateSync(this.vecFile, whole);
        this.o.logger.warn({ file: this.vecFile }, 'vector cache ended in a partial record (a crash mid-write); cut it off');
      }
      const floats = new Float32Array(this.dims * (whole / rec));
      for (let off = 0, i = 0; off < whole; off += rec, i++) {
        const v = floats.subarray(i * this.dims, (i + 1) * this.dims);
        new Uint8Array(v.buffer, v.byteOffset, this.dims * 4).set(data.subarray(off + HASH_BYTES, off + rec));
        this.map.set(data.toString('hex', off, off + HASH_BYTES), v);
      }
    } catch (err) {
      this.writable = false;
      this.o.logger.warn({ err, dir: this.o.dir }, 'cannot read the vector cache; embedding again, in memory only');
    }
  }
}
