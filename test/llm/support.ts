import { silentLogger } from '../../src/log/logger';
import { createModelClient, type CreateModelClientOptions } from '../../src/llm/provider';
import type { Sleep } from '../../src/llm/retry';
import type { ModelClient, ModelRequest } from '../../src/llm/types';
import type { FakeModelServer } from '../fakes/model/server';

/** A sleep that returns at once and remembers what it was asked to wait. */
export function recordingSleep(): { sleep: Sleep; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

type Extra = Partial<Omit<CreateModelClientOptions, 'env' | 'logger'>>;

const NO_LIMITS = { requestsPerMinute: 'unlimited', maxConcurrent: 'unlimited' } as const;

export function anthropicClient(fake: FakeModelServer, extra: Extra = {}): Promise<ModelClient> {
  return createModelClient({
    logger: silentLogger(),
    env: { ANTHROPIC_API_KEY: 'test-anthropic-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL },
    limits: NO_LIMITS,
    random: () => 0.5,
    ...extra,
  });
}

export function openaiClient(fake: FakeModelServer, extra: Extra & { apiKey?: string } = {}): Promise<ModelClient> {
  const { apiKey = 'test-openai-key', ...rest } = extra;
  return createModelClient({
    logger: silentLogger(),
    env: { OPENAI_API_KEY: apiKey || undefined, OPENAI_BASE_URL: fake.openaiBaseURL },
    limits: NO_LIMITS,
    random: () => 0.5,
    ...rest,
  });
}

export function ask(text: string, extra: Partial<ModelRequest> = {}): ModelRequest {
  return { purpose: 'chat', system: [{ text: 'You are a test bot.' }], messages: [{ role: 'user', content: text }], ...extra };
}

/** About `tokens` tokens of stable text under the fakes' chars/4 estimate. */
export function filler(tokens: number, seed = 'x'): string {
  return `${seed} `.repeat(tokens * 2).slice(0, tokens * 4);
}
