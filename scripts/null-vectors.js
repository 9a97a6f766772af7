#!/usr/bin/env node
'use strict';
// Writes assets/vectors/recall-null.<model>.bin: the recall null's lines (src/recall/nullChat.ts,
// nullTech.ts) embedded by the packaged sentence model, so a new data root need not embed them
// (src/embed/packagedVectors.ts). Run after changing those lines: `npm run null-vectors`
// (test/recall/nullVectors.test.ts fails until the file matches them).
const fs = require('node:fs');
const path = require('node:path');
const dist = path.join(__dirname, '..', 'dist');
const { loadUseLite } = require(path.join(dist, 'embed', 'useLite.js'));
const { NULL_LINES, NULL_VECTORS_NAME, nullDigest } = require(path.join(dist, 'recall', 'vectors.js'));
const { encodePackagedVectors, packagedVectorsFile } = require(path.join(dist, 'embed', 'packagedVectors.js'));

(async () => {
  const model = await loadUseLite();
  const vectors = [];
  // The worker's batch size, so each line is embedded as the bot would embed it.
  for (let i = 0; i < NULL_LINES.length; i += 64) vectors.push(...(await model.embed(NULL_LINES.slice(i, i + 64))));
  const file = packagedVectorsFile(NULL_VECTORS_NAME, model.id);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, encodePackagedVectors({ modelId: model.id, digest: nullDigest(), vectors }));
  process.stdout.write(`${path.relative(process.cwd(), file)}: ${vectors.length} vectors of ${vectors[0].length}\n`);
})().catch((err) => {
  process.stderr.write(`null-vectors: ${err.message}\n`);
  process.exit(1);
});
