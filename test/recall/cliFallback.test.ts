import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { run } from '../../src/cli/main';
import { runRecall } from '../../src/cli/commands/recall';
import type { CliIO } from '../../src/shared/cliIO';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import { makeTmpDir } from '../helpers/tmp';

/**
 * `minutes recall` when meaning is unavailable: the result by words on stdout, and on stderr one line
 * that says why and that recall fell back to words (not a logged stack).
 */
let tmp: ReturnType<typeof makeTmpDir>;
let chan: string;

function capture(env: NodeJS.ProcessEnv = {}): { io: CliIO; out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let o = '';
  let e = '';
  stdout.on('data', (d) => (o += d));
  stderr.on('data', (d) => (e += d));
  const stdin = new PassThrough() as unknown as CliIO['stdin'];
  return { io: { stdout, stderr, stdin, env: { MINUTES_VECTOR_CACHE: path.join(tmp.dir, 'vectors'), ...env }, cwd: tmp.dir }, out: () => o, err: () => e };
}

beforeEach(() => {
  tmp = makeTmpDir();
  chan = path.join(tmp.dir, 'team');
  fs.mkdirSync(chan);
  fs.writeFileSync(path.join(chan, 'MEMORY.md'), '# Channel Memory\n\n- [m-aaa001] We use pnpm for installs, never npm. [from: #dev, 2026-10-01]\n');
});
afterEach(() => tmp.cleanup());

const FALLBACK = /; recalling by words only\n$/;
/** A first run over a new vector cache says first how much it embeds (the shipped null included): not the point here. */
const withoutNotice = (err: string) => err.replace(/^minutes recall: embedding \d+ lines not seen before[^\n]*\n/, '');

describe('minutes recall with meaning unavailable', () => {
  test('--semantic local with a damaged model file: one line naming the cause and the fallback; the words result still printed', async () => {
    const c = capture();
    const code = await runRecall({ channelDir: chan, query: 'which tool do we use for installs? pnpm', semantic: 'local' }, c.io, {
      localModel: { module: path.join(__dirname, 'fixtures', 'brokenModelFile.js'), id: 'broken-model-test' },
    });
    expect(code).toBe(0);
    expect(c.out()).toContain('We use pnpm for installs, never npm.');
    expect(withoutNotice(c.err())).toMatch(
      /^minutes recall: meaning is unavailable \(the sentence model could not load: Unterminated string in JSON at position \d+\); recalling by words only\n$/,
    );
  });

  describe('--semantic api', () => {
    let fake: FakeModelServer;
    let env: NodeJS.ProcessEnv;
    beforeEach(async () => {
      fake = await startFakeModelServer();
      const config = path.join(tmp.dir, 'minutes.config.json');
      fs.writeFileSync(config, JSON.stringify({ recall: { semantic: 'api', api: { baseUrl: fake.openaiBaseURL, model: 'embed-test' } } }));
      env = { MINUTES_CONFIG: config, LOG_LEVEL: 'warn' };
    });
    afterEach(async () => {
      await fake.close();
    });
    const recall = async () => {
      const c = capture(env);
      const code = await run(
        ['node', 'minutes', 'recall', '--channel-dir', chan, '--query', 'which tool do we use for installs? pnpm', '--semantic', 'api'],
        c.io,
      );
      expect(code).toBe(0);
      expect(c.out()).toContain('We use pnpm for installs, never npm.');
      return withoutNotice(c.err());
    };

    test('a server answering 500: one line with its status and words', async () => {
      fake.embeddings.fail = 1000;
      const err = await recall();
      expect(err).toBe(
        `minutes recall: meaning is unavailable (the embeddings server at ${fake.openaiBaseURL} answered 500 (fake embeddings failure)); recalling by words only\n`,
      );
    });

    test('a server answering junk: one line saying it was not JSON', async () => {
      fake.embeddings.junk = 1000;
      const err = await recall();
      expect(err).toBe(
        `minutes recall: meaning is unavailable (the embeddings server at ${fake.openaiBaseURL} answered something that is not JSON); recalling by words only\n`,
      );
      expect(err).toMatch(FALLBACK);
    });
  });
});
