import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh temp folder per test; removed by the returned cleanup. */
export function makeTmpDir(prefix = 'minutes-test-'): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }) };
}
