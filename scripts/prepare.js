#!/usr/bin/env node
// `prepare` runs on every `npm ci`, also `npm ci --omit=dev`, where the compiler (a dev dependency)
// is not installed. Build when it is; otherwise say how to get a built install and succeed, so an
// install without dev dependencies does not fail.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
} catch {
  process.stdout.write(
    'minutes: TypeScript is not installed (dev dependencies omitted), so dist/ was not built.\n' +
      'minutes: for a production install run `npm ci && npm run build && npm prune --omit=dev` (see "Running in production" in docs/operations.md).\n',
  );
  process.exit(0);
}
const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
