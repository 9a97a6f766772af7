import fs from 'node:fs';
import path from 'node:path';
import { runCondense } from '../../src/cli/commands/condense';
import { DEFAULT_MODELS } from '../../src/llm/provider';
import { runCli, withCapturedIO } from '../helpers/cli';
import { withTmpAndFakeModel } from '../helpers/tmpAndFakeModel';
import { secretaryModel } from './helpers';

describe("minutes condense without --transcript: the channel's own log", () => {
  const world = withTmpAndFakeModel();
  const env = () => ({
    ANTHROPIC_API_KEY: 'k',
    ANTHROPIC_BASE_URL: world.fake.anthropicBaseURL,
    MINUTES_DATA_DIR: path.join(world.tmp.dir, 'data'),
    MINUTES_CONFIG: path.join(world.tmp.dir, 'config.json'),
  });
  const dir = () => path.join(world.tmp.dir, 'data', 'local', 'team');

  beforeEach(() => {
    fs.writeFileSync(path.join(world.tmp.dir, 'config.json'), JSON.stringify({ recall: { semantic: 'off' } }));
    const secretary = secretaryModel();
    // Chat answers plainly; the Secretary's condensation is scripted; upkeep's side calls get '{}'.
    world.fake.setHandler((req) => (req.model === DEFAULT_MODELS.anthropic.chat ? 'noted' : /Secretary|condens/i.test(req.system) ? secretary(req) : '{}'));
  });

  const condense = (opts: { since?: string } = {}) =>
    withCapturedIO((io) => runCondense({ channelDir: dir(), apply: true, ...opts }, io), { env: env(), cwd: world.tmp.dir });

  it('a console discussion is condensed from log.jsonl, and only what came after the last condensation next time', async () => {
    const chat = (lines: string[]) => runCli(['chat', '--channel', 'team'], { env: env(), cwd: world.tmp.dir, input: lines });
    expect((await chat(['which database for the importer?', 'decision: we use Postgres as the database for the importer'])).code).toBe(0);

    const first = await condense();
    expect(first.stderr).not.toMatch(/error|not/i);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('we use Postgres as the database for the importer');
    expect(fs.readFileSync(path.join(dir(), 'CONTEXT.md'), 'utf8')).toContain('we use Postgres as the database for the importer');

    const again = await condense();
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(`minutes condense: ${path.join(dir(), 'log.jsonl')} has no messages after the last condensation\n`);

    expect((await chat(['decision: we deploy from the release branch on Fridays'])).code).toBe(0);
    const next = await condense();
    expect(next.code).toBe(0);
    expect(next.stdout).toContain('we deploy from the release branch on Fridays');
    expect(next.stdout).not.toContain('Postgres');
  }, 30_000);

  it('a channel with no log, and a --since that is not a date, are one line each', async () => {
    fs.mkdirSync(dir(), { recursive: true });
    const none = await condense();
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`minutes condense: ${path.join(dir(), 'log.jsonl')} does not exist: pass a transcript with --transcript FILE.jsonl\n`);
    const bad = await condense({ since: 'yesterday-ish' });
    expect(bad.stderr).toMatch(/^minutes condense: --since "yesterday-ish" is not a date: use 2026-11-20 or 2026-11-20T10:00:00Z\n$/);
  });
});
