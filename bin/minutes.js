#!/usr/bin/env node
'use strict';
// The compiled entry. `npm ci` compiles it through the `prepare` script.
let main;
try {
  main = require('../dist/cli/main.js');
} catch (err) {
  if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes('dist/cli/main.js')) {
    process.stderr.write(
      'minutes: not built yet; run `npm ci` (or `npm run build`) in the project root first (for production: `npm ci && npm run build && npm prune --omit=dev`)\n',
    );
    process.exit(1);
  }
  throw err;
}
// A reader that stops early (`minutes shards plan … | head`) closes the pipe: like any Unix tool,
// end quietly with success rather than with an EPIPE stack.
process.stdout.on('error', (err) => {
  if (err && err.code === 'EPIPE') process.exit(0);
  throw err;
});
main.run(process.argv).then(
  (code) => {
    process.exitCode = typeof code === 'number' ? code : 0;
  },
  (err) => {
    process.stderr.write(`minutes: ${err && err.message ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
