import fs from 'node:fs';
import path from 'node:path';
import { ModelError } from '../../src/llm/errors';
import type { ModelClient } from '../../src/llm/types';
import type { BrokenKind } from '../fakes/model/broken';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import { blocks, runCli } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';
import { anthropicClient, ask, openaiClient, recordingSleep } from './support';

const KINDS: BrokenKind[] = ['drop', 'empty-json', 'sse-body', 'not-json', 'hang'];
const NAME = { anthropic: /Anthropic/, openai: /OpenAI-compatible/ } as const;
const URL_VAR = { anthropic: /ANTHROPIC_BASE_URL/, openai: /OPENAI_BASE_URL/ } as const;

describe('a misbehaving model server is retried and explained in one line', () => {
  let fake: FakeModelServer;
  let client: ModelClient | undefined;
  beforeEach(async () => {
    fake = await startFakeModelServer();
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    await fake.close();
  });

  const make = (which: 'anthropic' | 'openai') =>
    (which === 'anthropic' ? anthropicClient : openaiClient)(fake, { sleep: recordingSleep().sleep, timeoutMs: 400, retry: { maxAttempts: 3 } });

  describe.each(['anthropic', 'openai'] as const)('%s', (which) => {
    it.each(KINDS)('%s once, then a good answer: retried like a 5xx', async (kind) => {
      client = await make(which);
      fake.enqueue({ broken: kind }, 'second try worked');
      const res = await client.complete(ask('q'));
      expect(res.text).toBe('second try worked');
      expect(fake.requests).toHaveLength(2);
    });

    it.each(KINDS)('%s every time: a one-line message naming the provider and what to check', async (kind) => {
      client = await make(which);
      fake.setHandler(() => ({ broken: kind }));
      const err = await client.complete(ask('q')).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ModelError);
      const msg = (err as ModelError).userMessage();
      expect(msg).toMatch(NAME[which]);
      expect(msg).toMatch(URL_VAR[which]);
      expect(msg).toMatch(/check/);
      expect(msg).not.toMatch(/[\u0000-\u001f]/);
      expect(msg).not.toMatch(/Cannot read properties|Unexpected token|terminated/);
      // A hang is tried twice (a second one would only double the wait); the rest up to the limit.
      expect(fake.requests).toHaveLength(kind === 'hang' ? 2 : 3);
    });
  });

  it('console mode prints one clean error line, never the parser error or a NUL byte', async () => {
    const tmp = makeTmpDir();
    try {
      fake.setHandler(() => ({ broken: 'not-json' }));
      const config = path.join(tmp.dir, 'minutes.config.json');
      fs.writeFileSync(config, JSON.stringify({ limits: { maxRetries: 0 } }));
      const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: fake.anthropicBaseURL, MINUTES_DATA_DIR: path.join(tmp.dir, 'data'), MINUTES_CONFIG: config };
      const r = await runCli(['chat', '--channel', 'x'], { env, cwd: tmp.dir, input: ['hello'] });
      const b = blocks(r.stdout);
      expect(b[0]).toMatch(/^error: Anthropic .*ANTHROPIC_BASE_URL/);
      expect(b[0].split('\n')).toHaveLength(1);
      expect(r.stdout).not.toMatch(/\u0000|Unexpected token|SyntaxError/);
    } finally {
      tmp.cleanup();
    }
  });
});

describe.each(['anthropic', 'openai'] as const)('%s: a stream cut after part of the reply was shown', (which) => {
  it('is not retried (the person saw part of it) but still says what to check', async () => {
    const fake = await startFakeModelServer();
    const client = await (which === 'anthropic' ? anthropicClient : openaiClient)(fake, { sleep: recordingSleep().sleep, retry: { maxAttempts: 3 } });
    try {
      fake.enqueue({ broken: 'drop' }, 'never');
      const shown: string[] = [];
      const err = await client.complete(ask('q', { onText: (d) => shown.push(d) })).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ModelError);
      expect(shown.join('')).toBe('The first words');
      expect(fake.requests).toHaveLength(1);
      const msg = (err as ModelError).userMessage();
      expect(msg).toMatch(NAME[which]);
      expect(msg).toMatch(/closed the connection in the middle of its answer; check/);
    } finally {
      await client.close();
      await fake.close();
    }
  });
});
