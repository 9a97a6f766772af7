import { providerEnv, type Settings } from '../config/load';
import type { SideTaskDeps } from '../llm/sideTask';
import { createModelClient, ProviderConfigError } from '../llm/provider';
import type { ModelClient } from '../llm/types';
import type { Logger } from '../log/logger';
import { ChannelStore } from '../memory/store';

/**
 * check_plan's model: the one the bot would use (the config's provider and side model, keys from the
 * environment or `.env`), only when the config or environment names a provider. `minutes mcp` never
 * needs one: without it check_plan answers unverified candidates. Its calls are few and an agent
 * waits on each, so it keeps no shared Redis limit and gives up after one attempt of 30 s.
 */
export interface Judge {
  deps: SideTaskDeps;
  /** For the start line: which provider and side model judge. */
  describe: string;
  close(): Promise<void>;
}

export const JUDGE_TIMEOUT_MS = 30_000;

/** Whether the settings name a model provider at all (a key, a base URL, or the config's provider). */
export function namesProvider(s: Settings): boolean {
  return Boolean(s.config.provider || s.anthropic.apiKey || s.openai.apiKey || s.openai.baseURL);
}

/** The judge, null when no provider is named, or one line saying what is wrong with the one named. */
export async function buildJudge(o: { settings: Settings; logger: Logger; root: string }): Promise<Judge | null | { problem: string }> {
  if (!namesProvider(o.settings)) return null;
  let model: ModelClient;
  try {
    model = await createModelClient({
      logger: o.logger,
      env: { ...providerEnv(o.settings), REDIS_URL: undefined },
      provider: o.settings.config.provider,
      models: o.settings.config.models,
      retry: { maxAttempts: 1 },
      timeoutMs: JUDGE_TIMEOUT_MS,
    });
  } catch (err) {
    if (err instanceof ProviderConfigError) return { problem: err.message };
    throw err;
  }
  // The side-task path records nothing here (no usage book): the store is only its type's due; it
  // writes nothing unless asked to, and check_plan never asks.
  const store = new ChannelStore({ root: o.root, logger: o.logger });
  return {
    deps: { model, store, logger: o.logger, clock: () => new Date() },
    describe: `${model.provider} (side model ${model.models.side})`,
    close: () => model.close(),
  };
}
