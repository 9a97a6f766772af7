import net from 'node:net';
import { ModelError } from '../../src/llm/errors';
import { createModelClient } from '../../src/llm/provider';
import { silentLogger } from '../../src/log/logger';
import { ask, recordingSleep } from './support';

/** A port on 127.0.0.1 where nothing listens: taken from the OS, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function failureAt(provider: 'anthropic' | 'openai', base: string): Promise<ModelError> {
  const env = provider === 'anthropic' ? { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: base } : { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: base };
  const client = await createModelClient({ logger: silentLogger(), env, retry: { maxAttempts: 2 }, sleep: recordingSleep().sleep });
  try {
    const err = await client.complete(ask('hello')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ModelError);
    return err as ModelError;
  } finally {
    await client.close();
  }
}

describe('nothing answers at the base URL: the message names the URL and the reason', () => {
  it.each([
    ['openai', 'OPENAI_BASE_URL', 'the OpenAI-compatible server', '/v1'],
    ['anthropic', 'ANTHROPIC_BASE_URL', 'Anthropic', ''],
  ] as const)('%s: a port where nothing listens is "connection refused", not "overloaded"', async (provider, urlVar, name, suffix) => {
    const url = `http://127.0.0.1:${await closedPort()}${suffix}`;
    const err = await failureAt(provider, url);
    const msg = err.userMessage();
    expect(msg).toBe(
      `Could not connect to ${name} at ${url}: connection refused (nothing is listening there); check ${urlVar} and that the server is running, then try again.`,
    );
    expect(msg).not.toMatch(/overloaded/);
    expect(err.message).toContain(url);
  });

  it("port 1 (as in OPENAI_BASE_URL=http://127.0.0.1:1/v1): dialled like any port (Node's fetch, which refuses it, is not used), and refused", async () => {
    const err = await failureAt('openai', 'http://127.0.0.1:1/v1');
    expect(err.userMessage()).toMatch(
      /^Could not connect to the OpenAI-compatible server at http:\/\/127\.0\.0\.1:1\/v1: connection refused \(nothing is listening there\)/,
    );
    expect(err.userMessage()).not.toMatch(/overloaded/);
  });

  it('a password in the base URL is not shown', async () => {
    const err = await failureAt('openai', `http://user:hunter2secret@127.0.0.1:${await closedPort()}/v1`);
    expect(err.userMessage()).toMatch(/^Could not connect to the OpenAI-compatible server at http:\/\/\*\*\*@127\.0\.0\.1:\d+\/v1: /);
    expect(`${err.userMessage()} ${err.message}`).not.toMatch(/hunter2secret|user:/);
  });
});
