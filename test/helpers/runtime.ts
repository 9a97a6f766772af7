import { ConfigFileSchema } from '../../src/config/schema';
import type { Settings } from '../../src/config/load';
import { createRuntime, Runtime, RuntimeOptions } from '../../src/app/runtime';
import { silentLogger } from '../../src/log/logger';
import type { FakeModelServer } from '../fakes/model/server';

/** A runtime over a data dir, talking to a fake Anthropic (or, asked, OpenAI) server through the real SDK. */
export async function testRuntime(
  dataDir: string,
  fake: FakeModelServer,
  opts: RuntimeOptions & { config?: unknown; provider?: 'anthropic' | 'openai' } = {},
): Promise<Runtime> {
  const openai = opts.provider === 'openai';
  const settings: Settings = {
    dataDir,
    configFile: null,
    config: ConfigFileSchema.parse({
      ...((opts.config ?? { limits: { maxRetries: 0, requestsPerMinute: 0 } }) as object),
      ...(openai ? { provider: 'openai' } : {}),
    }),
    discord: null,
    anthropic: openai ? {} : { apiKey: 'test-key', baseURL: fake.anthropicBaseURL },
    openai: openai ? { apiKey: 'test-key', baseURL: fake.openaiBaseURL } : {},
    log: {},
    // Words only unless a test is about meaning: the sentence model costs a worker thread per runtime.
    semantic: { mode: 'off', cacheDir: '' },
  };
  return createRuntime(settings, silentLogger(), opts);
}

/** A clock tests move by hand. */
export function manualClock(startIso = '2026-11-21T09:00:00Z'): { now: () => Date; advance: (ms: number) => void; set: (iso: string) => void } {
  let t = Date.parse(startIso);
  return {
    now: () => new Date(t),
    advance: (ms) => {
      t += ms;
    },
    set: (iso) => {
      t = Date.parse(iso);
    },
  };
}
