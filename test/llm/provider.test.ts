import { Writable } from 'node:stream';
import { createLogger } from '../../src/log/logger';
import { createModelClient, DEFAULT_MODELS, ProviderConfigError, selectProvider } from '../../src/llm/provider';
import { startFakeModelServer } from '../fakes/model/server';

describe('selectProvider', () => {
  it.each([
    [{ ANTHROPIC_API_KEY: 'secret-a', OPENAI_API_KEY: 'secret-o' }, undefined, 'anthropic', /ANTHROPIC_API_KEY is set/],
    [{ OPENAI_API_KEY: 'secret-o' }, undefined, 'openai', /OPENAI_API_KEY is set/],
    [{ OPENAI_BASE_URL: 'http://localhost:11434/v1' }, undefined, 'openai', /keyless .*localhost:11434/],
    [{ ANTHROPIC_API_KEY: 'secret-a', OPENAI_API_KEY: 'secret-o' }, 'openai', 'openai', /configured/],
    [{ ANTHROPIC_API_KEY: 'secret-a', OPENAI_BASE_URL: 'http://user:secret-pw@lmstudio:1234/v1' }, 'openai', 'openai', /lmstudio/],
  ] as const)('%j configured=%s → %s', (env, configured, provider, reason) => {
    const choice = selectProvider({ env, configured });
    expect(choice.provider).toBe(provider);
    expect(choice.reason).toMatch(reason);
    expect(choice.reason).not.toContain('secret'); // no keys, no passwords in URLs
  });

  it('treats blank variables as unset', () => {
    expect(selectProvider({ env: { ANTHROPIC_API_KEY: '  ', OPENAI_API_KEY: 'o' } }).provider).toBe('openai');
  });

  it.each([
    [{}, undefined, /No model provider configured: set ANTHROPIC_API_KEY, or OPENAI_API_KEY/],
    [{ OPENAI_API_KEY: 'o' }, 'anthropic', /'anthropic' but ANTHROPIC_API_KEY is not set/],
    [{ ANTHROPIC_API_KEY: 'a' }, 'openai', /'openai' but neither OPENAI_API_KEY nor OPENAI_BASE_URL/],
  ] as const)('%j configured=%s fails with one line', (env, configured, message) => {
    let err: unknown;
    try {
      selectProvider({ env, configured });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ProviderConfigError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain('\n');
  });

  it('rejects an unknown configured name', () => {
    expect(() => selectProvider({ env: { ANTHROPIC_API_KEY: 'a' }, configured: 'gemini' as never })).toThrow(/Unknown model provider 'gemini'/);
  });
});

describe('createModelClient', () => {
  it('logs the provider choice and models but never the key', async () => {
    const fake = await startFakeModelServer();
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) });
    const logger = createLogger({ level: 'debug', format: 'json', destination: sink });
    const client = await createModelClient({
      logger,
      env: { ANTHROPIC_API_KEY: 'sk-ant-very-secret-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL },
    });
    try {
      expect(client.provider).toBe('anthropic');
      expect(client.models).toEqual(DEFAULT_MODELS.anthropic);
      await client.complete({ purpose: 'chat', system: [], messages: [{ role: 'user', content: 'hi' }] });
      const log = lines.join('');
      expect(log).toContain('"provider":"anthropic"');
      expect(log).toContain('model provider selected');
      expect(log).toContain(DEFAULT_MODELS.anthropic.chat);
      expect(log).not.toContain('very-secret');
      expect(fake.requests[0].body.model).toBe(DEFAULT_MODELS.anthropic.chat);
    } finally {
      await client.close();
      await fake.close();
    }
  });

  it('fails with the provider error before building anything', async () => {
    await expect(createModelClient({ logger: createLogger({ level: 'silent', format: 'json' }), env: {} })).rejects.toBeInstanceOf(ProviderConfigError);
  });
});
