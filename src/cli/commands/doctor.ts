import { createModelClient } from '../../llm/provider';
import { ModelError } from '../../llm/errors';
import { silentLogger } from '../../log/logger';
import type { Finding } from '../../bot/discord/doctor';
import { ConfigError } from '../../config/errors';
import { loadDotEnv, loadSettings, probeWritableReadOnly, providerEnv, Settings } from '../../config/load';
import type { CliIO } from '../../shared/cliIO';
import { dataFileFindings } from './doctorDataFiles';

/**
 * `minutes doctor`: every check, one line each; a problem's line says how to fix it. Exit status
 * 0 only when all is well.
 */
export async function runDoctor(io: CliIO): Promise<number> {
  loadDotEnv(io.cwd, io.env, io.projectRoot);
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
    findings.push(...(await dataFileFindings(settings.dataDir)));
    findings.push(...(await providerFindings(io, settings)));
    findings.push(...(await discordPart(io)));
  }
  for (const f of findings) io.stdout.write(`${f.ok ? 'ok  ' : 'FAIL'} ${f.check}: ${f.detail}\n`);
  const bad = findings.filter((f) => !f.ok).length;
  io.stdout.write(bad ? `${bad} problem(s) found.\n` : 'All checks passed.\n');
  return bad ? 1 : 0;
}

function dataRootFinding(dir: string): Finding {
  // The doctor only looks: a missing data root is judged by the folder start would create it in.
  const { problem, missing } = probeWritableReadOnly(dir);
  if (problem) return { ok: false, check: 'data root', detail: `${dir} is not writable (${problem}): set MINUTES_DATA_DIR to a folder this user can write` };
  return { ok: true, check: 'data root', detail: missing ? `${dir} does not exist yet; start will create it (its parent is writable)` : `${dir} is writable` };
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
    // Nothing usable came back: the hint says what happened and what to check; add what was sent.
    if (err instanceof ModelError && err.kind === 'unavailable' && err.hint) {
      return [{ ok: false, check: 'provider', detail: err.received ? `${err.hint} It sent: ${err.received}` : err.hint }];
    }
    // The operator's view: the provider's own words (status, type, message), then what to check.
    const first = (err as Error).message.split('\n')[0].replace(/[.\s]+$/, '');
    const why = err instanceof ModelError ? first : `${client.provider}: ${first}`;
    return [{ ok: false, check: 'provider', detail: `${why}: ${providerFix(err)}` }];
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
  const { discordFindings } = await import('../../bot/discord/doctor');
  return discordFindings({ token: s.discord!.token, apiUrl: s.discord!.apiUrl, discord: s.config.discord });
}

function providerFix(err: unknown): string {
  if (!(err instanceof ModelError)) return 'check the key, the base URL and the model names in the config';
  switch (err.kind) {
    case 'auth':
      return 'check the API key in .env';
    case 'rate_limited':
      return 'the key works but is rate-limited now; try again later or raise the account limits';
    case 'timeout':
      return 'no answer in time: check the base URL and the network, or try again';
    case 'unavailable':
      return err.status === undefined
        ? 'could not connect: check ANTHROPIC_BASE_URL / OPENAI_BASE_URL (unset for the public API) and the network'
        : 'the provider is down or overloaded; try again in a few minutes';
    default:
      return 'check the model names in the config (models.chat, models.side) and the base URL';
  }
}
