// Lets a child process spawned by a test `require()` the project's TypeScript sources directly,
// with no build step: `node -r ./test/helpers/register-ts.js child.js`. Transpile only; type
// checking is jest's and tsc's job.
'use strict';
const fs = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = function registerTs(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const out = ts.transpileModule(source, {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, sourceMap: false },
  });
  module._compile(out.outputText, filename);
};
