import { readPackagedVectors } from '../../src/embed/packagedVectors';
import { loadUseLite, USE_LITE_ID } from '../../src/embed/useLite';
import { NULL_LINES, NULL_VECTORS_NAME, nullDigest } from '../../src/recall/vectors';

/**
 * The recall null's vectors shipped for the packaged model (assets/vectors/) are that model's own
 * vectors for today's null lines: editing src/recall/nullChat.ts or nullTech.ts without
 * `npm run null-vectors` fails here (the bot would then embed the lines itself, slower, not wrongly).
 */
test('the shipped null vectors are the packaged model’s, for the null lines as they are', async () => {
  const shipped = readPackagedVectors(NULL_VECTORS_NAME, USE_LITE_ID);
  expect(shipped).toBeDefined();
  expect(shipped!.digest).toBe(nullDigest());
  expect(shipped!.vectors).toHaveLength(NULL_LINES.length);
  // Other model ids find nothing.
  expect(readPackagedVectors(NULL_VECTORS_NAME, 'another-model')).toBeUndefined();
  const model = await loadUseLite();
  const sample = [0, 68, 69, 300, NULL_LINES.length - 1];
  const fresh = await model.embed(sample.map((i) => NULL_LINES[i]));
  sample.forEach((i, k) => {
    let dot = 0;
    for (let d = 0; d < fresh[k].length; d++) dot += fresh[k][d] * shipped!.vectors[i][d];
    expect({ line: NULL_LINES[i], cosine: Number(dot.toFixed(3)) }).toEqual({ line: NULL_LINES[i], cosine: 1 });
  });
}, 60_000);
