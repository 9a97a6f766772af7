import { createModelClient } from '../../llm/provider';
import { ModelError } from '../../llm/errors';
import { silentLogger } from '../../log/logger';
import type { Finding } from '../../bot/doctor';
import { ConfigError, loadDotEnv, loadSettings, probeWritable, providerEnv, Settings } from '../../config/load';
import type { CliIO } from '../main';

/**
 * `minutes doctor`: every check, one line each; a problem's line says how to fix it. Exit status
 * 0 only when all is well.
 */
export async function runDoctor(io: CliIO): Promise<number> {
  loadDotEnv(io.cwd, io.env);
  const findings: Finding[] = [];
  let settings: Settings | null = null;
  try {
    settings = loadSettings({ env: io.env, cwd: io.cwd, needs: [] });
    findings.push({ ok: true, check: 'config', detail: settings.configFile ? `${settings.configFile} is valid` : 'no config file: defaults apply' });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    findings.push({ ok: false, check: 'config', detail: err.message });
  }
  if (settings) {
    findings.push(dataRootFinding(settings.dataDir));
    findings.push(...await providerFindings(io, settings));
    findings.push(...await discordPart(io));
  }
  for (const f of findings) io.stdout.write(`${f.ok ? 'ok  ' : 'FAIL'} ${f.check}: ${f.detail}\n`);
  const bad = findings.filter((f) => !f.ok).length;
  io.stdout.write(bad ? `${bad} problem(s) found.\n` : 'All checks passed.\n');
  return bad ? 1 : 0;
}

function dataRootFinding(dir: string): Finding {
  const problem = probeWritable(dir);
  return problem
    ? { ok: false, check: 'data root', detail: `${dir} is not writable (${problem}): set MINUTES_DATA_DIR to a folder this user can write` }
    : { ok: true, check: 'data root', detail: `${dir} is writable` };
}

async function providerFindings(io: CliIO, settings: Settings): Promise<Finding[]> {
  try {
    loadSettings({ env: io.env, cwd: io.cwd, needs: ['provider'] });
  } catch (err) {
    return [{ ok: false, check: 'provider', detail: (err as Error).message }];
  }
  const client = await createModelClient({
    logger: silentLogger(),
    // No REDIS_URL: the doctor's one call needs no shared limit.
    env: { ...providerEnv(settings), REDIS_URL: undefined },
    provider: settings.config.provider,
    models: settings.config.models,
    retry: { maxAttempts: 1 },
    timeoutMs: 30_000,
  });
  try {
    // The cheapest real call: a few tokens, both models, so a wrong model name shows up here.
    for (const purpose of ['chat', 'side'] as const) {
      await client.complete({ purpose, system: [{ text: 'Reply with the word OK.' }], messages: [{ role: 'user', content: 'ping' }], maxTokens: 5 });
    }
    return [{ ok: true, check: 'provider', detail: `${client.provider} answered (chat ${client.models.chat}, side ${client.models.side})` }];
  } catch (err) {
    const why = err instanceof ModelError ? err.userMessage() : (err as Error).message.split('\n')[0];
    const fix = err instanceof ModelError && err.kind === 'auth' ? 'check the API key in .env' : 'check the key, the base URL and the model names in the config';
    return [{ ok: false, check: 'provider', detail: `${client.provider}: ${why}: ${fix}` }];
  } finally {
    await client.close();
  }
}

async function discordPart(io: CliIO): Promise<Finding[]> {
  let s: Settings;
  try {
    s = loadSettings({ env: io.env, cwd: io.cwd, needs: ['discord'] });
  } catch (err) {
    return [{ ok: false, check: 'token', detail: (err as Error).message }];
  }
  const { discordFindings } = await import('../../bot/doctor');
  return discordFindings({ token: s.discord!.token, apiUrl: s.discord!.apiUrl, discord: s.config.discord });
}
