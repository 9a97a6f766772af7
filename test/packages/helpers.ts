import fs from 'node:fs';
import path from 'node:path';
import { PackageError } from '../../src/packages/errors';

/** Every file under `dir` (none when it does not exist), by relative path, content in base64: what "unchanged" means. */
export function fileTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = fs.readFileSync(p, 'base64');
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

/** The PackageError a call was refused with, checked to be one line. */
export async function refusal(p: Promise<unknown>): Promise<PackageError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PackageError);
  expect((err as Error).message).not.toMatch(/\n/);
  return err as PackageError;
}
